//go:build unix

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

package kind

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFailedRunDeletesTheClusterUnlessKept runs the end of a failed run
// with a kind that records its arguments instead of deleting anything.
func TestFailedRunDeletesTheClusterUnlessKept(t *testing.T) {
	cases := map[string]struct {
		keep       Keep
		failed     bool
		wantDelete bool
	}{
		"PassedNoKeep":        {keep: KeepNever, wantDelete: true},
		"FailedNoKeep":        {keep: KeepNever, failed: true, wantDelete: true},
		"FailedKeep1":         {keep: KeepAlways, failed: true},
		"PassedKeep1":         {keep: KeepAlways},
		"FailedKeepOnFailure": {keep: KeepOnFailure, failed: true},
		"PassedKeepOnFailure": {keep: KeepOnFailure, wantDelete: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			out := t.TempDir()
			calls := filepath.Join(out, "calls")
			if err := os.MkdirAll(filepath.Join(out, "bin"), 0o750); err != nil {
				t.Fatal(err)
			}
			script := "#!/bin/sh\necho \"$@\" >> " + calls + "\n"
			if err := os.WriteFile(filepath.Join(out, "bin", "kind"), []byte(script), 0o700); err != nil {
				t.Fatal(err)
			}
			var log bytes.Buffer
			r := &runner{o: Options{Root: out, Keep: tc.keep, Out: &log}, out: out}
			var runErr error
			if tc.failed {
				runErr = errors.New("a step failed")
			}
			if err := r.finish(context.Background(), runErr); err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(calls)
			deleted := strings.Contains(string(b), "delete cluster --name "+ClusterName)
			if deleted != tc.wantDelete {
				t.Errorf("cluster deleted: %t, want %t (kind called with %q; output %q)", deleted, tc.wantDelete, b, log.String())
			}
			if !deleted && !strings.Contains(log.String(), "KUBECONFIG=") {
				t.Errorf("a kept cluster's output %q does not say how to reach it", log.String())
			}
		})
	}
}
