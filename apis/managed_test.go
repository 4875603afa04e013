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

package apis_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/crossplane-contrib/provider-coder/apis"
)

// TestEveryManagedKindNamesTheKindItsCRDServes: under SafeStart a kind's
// controller, indexes and watches start when the CRD gate says its
// GroupVersionKind is served. A kind whose GVK is not the one its CRD
// serves, or none at all, would never start, and every lookup by its
// indexes would fail.
func TestEveryManagedKindNamesTheKindItsCRDServes(t *testing.T) {
	s := runtime.NewScheme()
	if err := apis.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	served := map[schema.GroupVersionKind]bool{}
	for _, crd := range readCRDs(t) {
		for _, v := range crd.Spec.Versions {
			if v.Served {
				served[schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}] = true
			}
		}
	}
	seen := map[schema.GroupVersionKind]bool{}
	for _, k := range apis.ManagedKinds() {
		if !served[k.GVK] {
			t.Errorf("managed kind %s (%T) names %q, which no CRD in package/crds serves", k.Kind, k.New(), k.GVK)
		}
		if seen[k.GVK] {
			t.Errorf("managed kind %s names %q twice", k.Kind, k.GVK)
		}
		seen[k.GVK] = true
		if k.Kind != k.GVK.Kind {
			t.Errorf("managed kind %s has GVK %q of another kind", k.Kind, k.GVK)
		}
		if got := gvkOf(t, s, k.New()); got != k.GVK {
			t.Errorf("managed kind %s names %q, its Go type %T is %q", k.Kind, k.GVK, k.New(), got)
		}
		if got, want := gvkOf(t, s, k.NewList()), k.GVK.GroupVersion().WithKind(k.GVK.Kind+"List"); got != want {
			t.Errorf("managed kind %s: its list %T is %q, want %q", k.Kind, k.NewList(), got, want)
		}
	}
}

func gvkOf(t *testing.T, s *runtime.Scheme, o runtime.Object) schema.GroupVersionKind {
	t.Helper()
	gvks, _, err := s.ObjectKinds(o)
	if err != nil || len(gvks) != 1 {
		t.Fatalf("%T: %v %v", o, gvks, err)
	}
	return gvks[0]
}
