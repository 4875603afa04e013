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

// Package composition tests examples/composition: the XRD, Composition and
// sample XR pass `crossplane beta validate`, and every resource the
// Composition composes from the sample XR passes admission on a real API
// server with provider-coder's CRDs.
//
// function-patch-and-transform cannot run here (it is an OCI image), so this
// package renders its input with the small subset of patch and transform
// behaviour the example uses. Anything outside that subset is an error, never
// silently ignored, so extending the Composition extends this renderer too.
package composition

import (
	"bytes"
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/fieldpath"
)

// The function-patch-and-transform names this renderer understands.
const (
	inputAPIVersion = "pt.fn.crossplane.io/v1beta1"
	inputKind       = "Resources"

	patchFromComposite = "FromCompositeFieldPath"
	patchPatchSet      = "PatchSet"

	policyRequired = "Required"

	transformString = "string"
	stringFormat    = "Format"
)

// Input is the part of function-patch-and-transform's Resources input that
// the example uses. Decoding is strict: a field outside it fails the test.
type Input struct {
	APIVersion string     `json:"apiVersion"`
	Kind       string     `json:"kind"`
	PatchSets  []PatchSet `json:"patchSets,omitempty"`
	Resources  []Template `json:"resources"`
}

// A PatchSet is a named list of patches that templates include.
type PatchSet struct {
	Name    string  `json:"name"`
	Patches []Patch `json:"patches"`
}

// A Template is one composed resource: a base object and its patches.
type Template struct {
	Name    string         `json:"name"`
	Base    map[string]any `json:"base"`
	Patches []Patch        `json:"patches,omitempty"`
}

// A Patch copies a value from the composite resource into the composed one.
type Patch struct {
	Type          string      `json:"type,omitempty"`
	FromFieldPath string      `json:"fromFieldPath,omitempty"`
	ToFieldPath   string      `json:"toFieldPath,omitempty"`
	PatchSetName  string      `json:"patchSetName,omitempty"`
	Transforms    []Transform `json:"transforms,omitempty"`
	Policy        *Policy     `json:"policy,omitempty"`
}

// Policy says whether a missing source field blocks the composed resource.
type Policy struct {
	FromFieldPath string `json:"fromFieldPath,omitempty"`
}

// A Transform changes a value on its way to the composed resource.
type Transform struct {
	Type   string           `json:"type"`
	String *StringTransform `json:"string,omitempty"`
}

// A StringTransform formats a value with a Go format string.
type StringTransform struct {
	Type string `json:"type"`
	Fmt  string `json:"fmt,omitempty"`
}

// DecodeInput strictly decodes a pipeline step's input.
func DecodeInput(raw []byte) (*Input, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	in := &Input{}
	if err := d.Decode(in); err != nil {
		return nil, errors.Wrap(err, "cannot decode the function input (a field this renderer does not model?)")
	}
	if in.APIVersion != inputAPIVersion || in.Kind != inputKind {
		return nil, errors.Errorf("function input is %s %s, want %s %s", in.APIVersion, in.Kind, inputAPIVersion, inputKind)
	}
	return in, nil
}

// Render returns the composed resource that t describes for the composite
// resource xr, as function-patch-and-transform would desire it on first
// creation. It returns false when a Required patch finds no source value: the
// function then leaves a not-yet-existing resource out.
func Render(xr map[string]any, in *Input, t Template) (map[string]any, bool, error) {
	patches, err := expandPatchSets(in.PatchSets, t.Patches)
	if err != nil {
		return nil, false, errors.Wrapf(err, "resource %q", t.Name)
	}
	obj := runtime.DeepCopyJSON(t.Base)
	from, to := fieldpath.Pave(xr), fieldpath.Pave(obj)
	for i, p := range patches {
		if p.Type != "" && p.Type != patchFromComposite {
			return nil, false, errors.Errorf("resource %q patch %d: type %q is not supported by this renderer", t.Name, i, p.Type)
		}
		v, err := from.GetValue(p.FromFieldPath)
		if fieldpath.IsNotFound(err) {
			if p.Policy != nil && p.Policy.FromFieldPath == policyRequired {
				return nil, false, nil
			}
			continue
		}
		if err != nil {
			return nil, false, errors.Wrapf(err, "resource %q patch %d", t.Name, i)
		}
		v = runtime.DeepCopyJSONValue(v)
		for j, tr := range p.Transforms {
			if v, err = transform(tr, v); err != nil {
				return nil, false, errors.Wrapf(err, "resource %q patch %d transform %d", t.Name, i, j)
			}
		}
		dst := p.ToFieldPath
		if dst == "" {
			dst = p.FromFieldPath
		}
		if err := to.SetValue(dst, v); err != nil {
			return nil, false, errors.Wrapf(err, "resource %q patch %d", t.Name, i)
		}
	}
	return obj, true, nil
}

func expandPatchSets(sets []PatchSet, patches []Patch) ([]Patch, error) {
	out := make([]Patch, 0, len(patches))
	for _, p := range patches {
		if p.Type != patchPatchSet {
			out = append(out, p)
			continue
		}
		found := false
		for _, s := range sets {
			if s.Name == p.PatchSetName {
				out = append(out, s.Patches...)
				found = true
				break
			}
		}
		if !found {
			return nil, errors.Errorf("no patch set named %q", p.PatchSetName)
		}
	}
	return out, nil
}

func transform(t Transform, v any) (any, error) {
	if t.Type != transformString || t.String == nil || t.String.Type != stringFormat {
		return nil, errors.Errorf("transform %+v is not supported by this renderer", t)
	}
	return fmt.Sprintf(t.String.Fmt, v), nil
}

// Composed is a rendered resource and the name of its template.
type Composed struct {
	Name   string
	Object map[string]any
}

// Compose renders every template of in for xr and adds the metadata
// Crossplane adds to a composed resource of a namespaced XR: the XR's
// namespace, a name generated from the XR's, and the label and annotation
// that tie it to the XR. The controller owner reference, which needs a live
// XR's UID, is left out; admission does not look at it.
func Compose(xr map[string]any, in *Input) ([]Composed, error) {
	p := fieldpath.Pave(xr)
	ns, err := p.GetString("metadata.namespace")
	if err != nil {
		return nil, errors.Wrap(err, "the XR has no namespace")
	}
	name, err := p.GetString("metadata.name")
	if err != nil {
		return nil, errors.Wrap(err, "the XR has no name")
	}
	var out []Composed
	for _, t := range in.Resources {
		obj, ok, err := Render(xr, in, t)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		c := fieldpath.Pave(obj)
		for path, v := range map[string]any{
			"metadata.namespace":                                              ns,
			"metadata.generateName":                                           name + "-",
			"metadata.labels['crossplane.io/composite']":                      name,
			"metadata.annotations['crossplane.io/composition-resource-name']": t.Name,
		} {
			if err := c.SetValue(path, v); err != nil {
				return nil, errors.Wrapf(err, "resource %q", t.Name)
			}
		}
		out = append(out, Composed{Name: t.Name, Object: obj})
	}
	return out, nil
}
