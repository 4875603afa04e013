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

package main

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A CRD with one of everything the generator renders: a required field with
// a default and an enum, a CEL rule on a field and on the object, a list of
// objects, a map, a pipe in a pattern and HTML-like text in a description.
const widgetCRD = `---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.m.crossplane.io
spec:
  group: example.m.crossplane.io
  names:
    kind: Widget
    plural: widgets
    singular: widget
    categories: [crossplane]
  scope: Namespaced
  versions:
  - name: v1alpha1
    served: true
    storage: true
    additionalPrinterColumns:
    - {name: READY, type: string, jsonPath: ".status.ready"}
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        description: A Widget is a test kind.
        x-kubernetes-validations:
        - rule: self.metadata.name.size() < 10
        properties:
          apiVersion: {type: string}
          kind: {type: string}
          metadata: {type: object}
          spec:
            type: object
            required: [mode]
            properties:
              mode:
                type: string
                default: Fast
                enum: [Fast, Slow]
                description: |-
                  Mode picks the speed
                  of the <widget>.
              name:
                type: string
                maxLength: 64
                pattern: '^(a|b)+$'
                x-kubernetes-validations:
                - rule: self == oldSelf
                  message: name is immutable
              parts:
                type: array
                maxItems: 3
                items:
                  type: object
                  required: [id]
                  properties:
                    id: {type: integer, format: int64}
              labels:
                type: object
                additionalProperties:
                  type: object
                  properties:
                    value: {type: string}
          status:
            type: object
            properties:
              since: {type: string, format: date-time}
`

func TestFieldTableHasEveryFieldWithItsRules(t *testing.T) {
	defs, err := parse([]byte(widgetCRD))
	if err != nil {
		t.Fatal(err)
	}
	secs := sections(defs)
	if len(secs) != 1 {
		t.Fatalf("got %d sections, want 1", len(secs))
	}
	spec := secs[0].version.Schema.OpenAPIV3Schema.Properties["spec"]
	got := fields("spec", &spec, true)
	want := []field{
		{Path: "spec", Type: "object", Required: true},
		{Path: "spec.labels", Type: "map[string]object"},
		{Path: "spec.labels.*.value", Type: "string"},
		{Path: "spec.mode", Type: "string", Required: true, Default: "`Fast`", Validation: "one of `Fast`, `Slow`",
			Description: "Mode picks the speed of the &lt;widget&gt;."},
		{Path: "spec.name", Type: "string", Validation: "pattern `^(a\\|b)+$`; length at most 64; CEL: name is immutable"},
		{Path: "spec.parts", Type: "[]object", Validation: "items at most 3"},
		{Path: "spec.parts[].id", Type: "integer (int64)", Required: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("fields(spec): -want +got:\n%s", diff)
	}
}

func TestPageHasAnIndexLinkingEachSection(t *testing.T) {
	defs, err := parse([]byte(widgetCRD))
	if err != nil {
		t.Fatal(err)
	}
	page := render(defs)
	for _, want := range []string{
		"| [Widget](#widget-examplemcrossplaneiov1alpha1-namespaced) | `example.m.crossplane.io/v1alpha1` | namespaced |",
		"## Widget (example.m.crossplane.io/v1alpha1, namespaced)",
		"- `kubectl get` columns: READY.",
		"- Checked at admission on the whole object: `self.metadata.name.size() < 10`.",
		"| `status.since` | string (date-time) |  |  |  |  |",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// Every table row has the header's six columns, pipes in patterns
	// notwithstanding.
	for _, line := range strings.Split(page, "\n") {
		if strings.HasPrefix(line, "| `spec") || strings.HasPrefix(line, "| `status") {
			if n := strings.Count(line, "|") - strings.Count(line, `\|`); n != 7 {
				t.Errorf("row has %d column separators, want 7: %s", n, line)
			}
		}
	}
}

func TestSectionsPutProviderConfigsAndV2GroupsFirst(t *testing.T) {
	defs, err := load("../../package/crds")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range sections(defs) {
		got = append(got, s.crd.Spec.Group+"/"+s.crd.Spec.Names.Kind)
	}
	want := []string{
		"coder.m.crossplane.io/ClusterProviderConfig",
		"coder.m.crossplane.io/ProviderConfig",
		"ai.coder.m.crossplane.io/AIGatewayKey",
		"ai.coder.m.crossplane.io/AIProvider",
		"ai.coder.m.crossplane.io/GroupAIBudget",
		"ai.coder.m.crossplane.io/MCPServer",
		"ai.coder.m.crossplane.io/UserAIBudgetOverride",
		"coder.crossplane.io/CleanupRecord",
		"coder.crossplane.io/ProviderConfig",
		"ai.coder.crossplane.io/AIGatewayKey",
		"ai.coder.crossplane.io/AIProvider",
		"ai.coder.crossplane.io/GroupAIBudget",
		"ai.coder.crossplane.io/MCPServer",
		"ai.coder.crossplane.io/UserAIBudgetOverride",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("section order: -want +got:\n%s", diff)
	}
}

func TestSlugMatchesGitHubAnchors(t *testing.T) {
	cases := map[string]string{
		"AIGatewayKey (ai.coder.m.crossplane.io/v1alpha1, namespaced)": "aigatewaykey-aicodermcrossplaneiov1alpha1-namespaced",
		"CleanupRecord (coder.crossplane.io/v1alpha1, cluster-scoped)": "cleanuprecord-codercrossplaneiov1alpha1-cluster-scoped",
	}
	for in, want := range cases {
		if got := slug(in); got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestAPIReferenceMatchesTheCRDs fails when docs/reference/api.md was not
// regenerated after the CRDs changed (make generate does both).
func TestAPIReferenceMatchesTheCRDs(t *testing.T) {
	defs, err := load("../../package/crds")
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile("../../docs/reference/api.md")
	if err != nil {
		t.Fatal(err)
	}
	if string(committed) != render(defs) {
		t.Error("docs/reference/api.md differs from what package/crds generates; run make docs")
	}
}
