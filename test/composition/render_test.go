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

package composition

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRenderPatchesFromTheComposite(t *testing.T) {
	xr := map[string]any{
		"metadata": map[string]any{"name": "ml", "namespace": "team-ml"},
		"spec": map[string]any{
			"team":   "ml",
			"secret": map[string]any{"name": "creds", "key": "openai"},
		},
	}
	required := &Policy{FromFieldPath: policyRequired}
	format := func(f string) []Transform {
		return []Transform{{Type: transformString, String: &StringTransform{Type: stringFormat, Fmt: f}}}
	}
	base := map[string]any{"kind": "AIProvider", "spec": map[string]any{"forProvider": map[string]any{"type": "openai"}}}

	type want struct {
		obj map[string]any
		ok  bool
		err bool
	}
	cases := map[string]struct {
		reason string
		sets   []PatchSet
		t      Template
		want   want
	}{
		"CopyAndFormat": {
			reason: "A FromCompositeFieldPath patch copies the value through its string Format transforms.",
			t: Template{Name: "p", Base: base, Patches: []Patch{
				{FromFieldPath: "spec.team", ToFieldPath: "spec.forProvider.name", Transforms: format("%s-openai")},
			}},
			want: want{ok: true, obj: map[string]any{"kind": "AIProvider", "spec": map[string]any{"forProvider": map[string]any{
				"type": "openai", "name": "ml-openai",
			}}}},
		},
		"ChainedTransforms": {
			reason: "Transforms apply in order.",
			t: Template{Name: "p", Base: map[string]any{}, Patches: []Patch{
				{FromFieldPath: "spec.team", ToFieldPath: "a", Transforms: append(format("%s-x"), format("<%s>")...)},
			}},
			want: want{ok: true, obj: map[string]any{"a": "<ml-x>"}},
		},
		"ObjectIntoArrayIndex": {
			reason: "An object is copied into an array element that does not exist yet.",
			t: Template{Name: "p", Base: map[string]any{}, Patches: []Patch{
				{Type: patchFromComposite, FromFieldPath: "spec.secret", ToFieldPath: "spec.refs[0]", Policy: required},
			}},
			want: want{ok: true, obj: map[string]any{"spec": map[string]any{"refs": []any{
				map[string]any{"name": "creds", "key": "openai"},
			}}}},
		},
		"ToDefaultsToFrom": {
			reason: "Without toFieldPath the value lands at the same path.",
			t:      Template{Name: "p", Base: map[string]any{}, Patches: []Patch{{FromFieldPath: "spec.team"}}},
			want:   want{ok: true, obj: map[string]any{"spec": map[string]any{"team": "ml"}}},
		},
		"OptionalMissingKeepsBase": {
			reason: "An optional patch whose source is missing leaves the base value.",
			t: Template{Name: "p", Base: base, Patches: []Patch{
				{FromFieldPath: "spec.providers.openai.baseURL", ToFieldPath: "spec.forProvider.type"},
			}},
			want: want{ok: true, obj: base},
		},
		"RequiredMissingLeavesResourceOut": {
			reason: "A Required patch whose source is missing leaves a new resource out.",
			t: Template{Name: "p", Base: base, Patches: []Patch{
				{FromFieldPath: "spec.team", ToFieldPath: "spec.forProvider.name"},
				{FromFieldPath: "spec.providers.anthropic", ToFieldPath: "spec.x", Policy: required},
			}},
			want: want{ok: false},
		},
		"PatchSetExpands": {
			reason: "A PatchSet patch runs the named set's patches in its place.",
			sets:   []PatchSet{{Name: "s", Patches: []Patch{{FromFieldPath: "spec.team", ToFieldPath: "b"}}}},
			t: Template{Name: "p", Base: map[string]any{}, Patches: []Patch{
				{Type: patchPatchSet, PatchSetName: "s"},
				{FromFieldPath: "spec.team", ToFieldPath: "b", Transforms: format("%s-2")},
			}},
			want: want{ok: true, obj: map[string]any{"b": "ml-2"}},
		},
		"UnknownPatchSet": {
			reason: "A PatchSet patch naming no set is an error.",
			t:      Template{Name: "p", Base: map[string]any{}, Patches: []Patch{{Type: patchPatchSet, PatchSetName: "nope"}}},
			want:   want{err: true},
		},
		"UnsupportedPatchType": {
			reason: "A patch type outside the modelled subset is an error, not a no-op.",
			t:      Template{Name: "p", Base: map[string]any{}, Patches: []Patch{{Type: "ToCompositeFieldPath", FromFieldPath: "status.x"}}},
			want:   want{err: true},
		},
		"UnsupportedTransform": {
			reason: "A transform outside the modelled subset is an error, not a no-op.",
			t: Template{Name: "p", Base: map[string]any{}, Patches: []Patch{
				{FromFieldPath: "spec.team", Transforms: []Transform{{Type: "map"}}},
			}},
			want: want{err: true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			obj, ok, err := Render(xr, &Input{PatchSets: tc.sets}, tc.t)
			if (err != nil) != tc.want.err {
				t.Fatalf("%s\nRender(...): error %v, want error %t", tc.reason, err, tc.want.err)
			}
			if ok != tc.want.ok {
				t.Errorf("%s\nRender(...): ok %t, want %t", tc.reason, ok, tc.want.ok)
			}
			if diff := cmp.Diff(tc.want.obj, obj); diff != "" {
				t.Errorf("%s\nRender(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
	if _, ok := base["metadata"]; ok || len(base["spec"].(map[string]any)["forProvider"].(map[string]any)) != 1 {
		t.Errorf("Render modified the template's base: %v", base)
	}
	if xr["spec"].(map[string]any)["secret"].(map[string]any)["name"] != "creds" {
		t.Errorf("Render modified the composite resource: %v", xr)
	}
}

func TestComposeAddsCrossplaneMetadata(t *testing.T) {
	xr := map[string]any{
		"metadata": map[string]any{"name": "ml", "namespace": "team-ml"},
		"spec":     map[string]any{"team": "ml"},
	}
	in := &Input{Resources: []Template{
		{Name: "key", Base: map[string]any{"kind": "AIGatewayKey"}, Patches: []Patch{{FromFieldPath: "spec.team", ToFieldPath: "spec.forProvider.namePrefix"}}},
		{Name: "absent", Base: map[string]any{"kind": "AIProvider"}, Patches: []Patch{{FromFieldPath: "spec.providers.openai", Policy: &Policy{FromFieldPath: policyRequired}}}},
	}}
	got, err := Compose(xr, in)
	if err != nil {
		t.Fatalf("Compose(...): %v", err)
	}
	want := []Composed{{Name: "key", Object: map[string]any{
		"kind": "AIGatewayKey",
		"metadata": map[string]any{
			"namespace":    "team-ml",
			"generateName": "ml-",
			"labels":       map[string]any{"crossplane.io/composite": "ml"},
			"annotations":  map[string]any{"crossplane.io/composition-resource-name": "key"},
		},
		"spec": map[string]any{"forProvider": map[string]any{"namePrefix": "ml"}},
	}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Compose(...): -want, +got:\n%s", diff)
	}
}

func TestDecodeInputIsStrict(t *testing.T) {
	cases := map[string]struct {
		raw     string
		wantErr bool
	}{
		"Modelled":       {raw: `{"apiVersion":"pt.fn.crossplane.io/v1beta1","kind":"Resources","resources":[{"name":"a","base":{}}]}`},
		"UnknownField":   {raw: `{"apiVersion":"pt.fn.crossplane.io/v1beta1","kind":"Resources","resources":[{"name":"a","base":{},"readinessChecks":[]}]}`, wantErr: true},
		"OtherInputKind": {raw: `{"apiVersion":"template.fn.crossplane.io/v1beta1","kind":"GoTemplate","resources":[]}`, wantErr: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := DecodeInput([]byte(tc.raw))
			if (err != nil) != tc.wantErr {
				t.Errorf("DecodeInput(%s): error %v, want error %t", tc.raw, err, tc.wantErr)
			}
		})
	}
}
