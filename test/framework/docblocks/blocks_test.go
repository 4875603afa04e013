/*
Copyright 2026 The provider-coder Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package docblocks

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestBlocksCarryTheMarkerBeforeThem(t *testing.T) {
	page := "# A page\n\n" +
		"<!-- docs-test: skip (needs a registry) -->\n\n" +
		"```sh\nmake xpkg\n```\n\n" +
		"Save it:\n\n" +
		"<!-- docs-test: file team-b.yaml -->\n" +
		"```yaml\nkind: Namespace\n```\n\n" +
		"1. In a list:\n   ```sh\n   kubectl get ns\n   ```\n\n" +
		"```\noutput\n```\n"
	got, err := Blocks([]byte(page))
	if err != nil {
		t.Fatal(err)
	}
	want := []Block{
		{Line: 5, Lang: "sh", Text: "make xpkg\n", Marker: Marker{Verb: VerbSkip, Arg: "needs a registry"}},
		{Line: 12, Lang: "yaml", Text: "kind: Namespace\n", Marker: Marker{Verb: VerbFile, Arg: "team-b.yaml"}},
		{Line: 17, Lang: "sh", Text: "kubectl get ns\n"},
		{Line: 21, Lang: "", Text: "output\n"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Blocks (-want +got):\n%s", diff)
	}
}

// A block marked kubelet runs where pods run (make e2e on kind) and is
// skipped on the test bed; a block marked skip runs nowhere.
func TestAKubeletBlockRunsOnlyWhereAKubeletRuns(t *testing.T) {
	got, err := Blocks([]byte("<!-- docs-test: kubelet (the bed checks the Deployment) -->\n```sh\nkubectl wait\n```\n"))
	if err != nil || len(got) != 1 {
		t.Fatalf("Blocks() = %v, %v; want one block", got, err)
	}
	m := got[0].Marker
	if m.Verb != VerbKubelet || m.Arg != "the bed checks the Deployment" {
		t.Errorf("marker = %+v, want kubelet with its reason", m)
	}
	for _, tc := range []struct {
		m       Marker
		kubelet bool
		want    bool
	}{
		{m, true, false}, {m, false, true},
		{Marker{Verb: VerbSkip, Arg: "x"}, true, true}, {Marker{Verb: VerbSkip, Arg: "x"}, false, true},
		{Marker{}, true, false}, {Marker{}, false, false},
		{Marker{Verb: VerbDryRun, Arg: "x"}, false, false},
	} {
		if got := tc.m.Skipped(tc.kubelet); got != tc.want {
			t.Errorf("%+v.Skipped(kubelet %t) = %t, want %t", tc.m, tc.kubelet, got, tc.want)
		}
	}
}

func TestAMarkerThatSkipsNothingIsAnError(t *testing.T) {
	cases := map[string]string{
		"no reason":           "<!-- docs-test: skip -->\n```sh\nls\n```\n",
		"kubelet, no reason":  "<!-- docs-test: kubelet -->\n```sh\nls\n```\n",
		"an empty reason":     "<!-- docs-test: skip () -->\n```sh\nls\n```\n",
		"an unknown verb":     "<!-- docs-test: ignore (why) -->\n```sh\nls\n```\n",
		"text before a block": "<!-- docs-test: skip (why) -->\nSome text.\n```sh\nls\n```\n",
		"no block after it":   "```sh\nls\n```\n<!-- docs-test: skip (why) -->\n",
		"a file with a path":  "<!-- docs-test: file ../x.yaml -->\n```yaml\nkind: A\n```\n",
		"an unclosed block":   "```sh\nls\n",
	}
	for name, page := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := Blocks([]byte(page)); err == nil {
				t.Errorf("Blocks accepted %q", page)
			}
		})
	}
}

func TestCLICommandsAreTheWordsAfterTheCLI(t *testing.T) {
	page := "Log in with `crank xpkg login`, push with\n```sh\ngo tool crank xpkg push -f a.xpkg reg/x:v1\n" +
		"crossplane beta trace teamaiaccess ml\ncrossplane-system\n```\n"
	want := []string{"xpkg login", "xpkg push", "beta trace"}
	if diff := cmp.Diff(want, CLICommands([]byte(page))); diff != "" {
		t.Errorf("CLICommands (-want +got):\n%s", diff)
	}
}

func TestAnUnlabelledBlockOfCommandsIsToldFromOutput(t *testing.T) {
	for text, want := range map[string]bool{
		"kubectl get cleanuprecords\nNAME  KIND\n": true,
		"  make run\n": true,
		"NAME      READY   URL\ndefault   True\n":  false,
		"Ready   False   CoderUnreachable   GET\n": false,
	} {
		if got := LooksLikeCommands(text); got != want {
			t.Errorf("LooksLikeCommands(%q) = %v, want %v", text, got, want)
		}
	}
}
