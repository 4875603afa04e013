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

package providerconfig

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	extv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// The CRDs default spec.deletion at admission and BoundsFrom defaults it
// again in Go, for objects stored before a default existed. The two must
// agree on every ProviderConfig kind.
func TestDefaultBoundsMatchTheCRDDefaults(t *testing.T) {
	want := DefaultBounds()
	files, err := filepath.Glob("../../package/crds/*providerconfigs.yaml")
	if err != nil || len(files) != 3 {
		t.Fatalf("want the CRDs of the three ProviderConfig kinds, got %v (%v)", files, err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			crd := &extv1.CustomResourceDefinition{}
			if err := yaml.Unmarshal(b, crd); err != nil {
				t.Fatal(err)
			}
			for _, v := range crd.Spec.Versions {
				d := v.Schema.OpenAPIV3Schema.Properties["spec"].Properties["deletion"]
				g := d.Properties["grace"]
				for _, c := range []struct {
					field string
					s     extv1.JSONSchemaProps
					want  time.Duration
				}{
					{"dependentTimeout", d.Properties["dependentTimeout"], want.DependentTimeout},
					{"liveDependentTimeout", d.Properties["liveDependentTimeout"], want.LiveDependentTimeout},
					{"unreachableTimeout", d.Properties["unreachableTimeout"], want.UnreachableTimeout},
					{"grace.base", g.Properties["base"], want.GraceBase},
					{"grace.perDependent", g.Properties["perDependent"], want.GracePerDependent},
					{"grace.max", g.Properties["max"], want.GraceMax},
				} {
					if c.s.Default == nil {
						t.Errorf("%s: spec.deletion.%s has no default", v.Name, c.field)
						continue
					}
					var s string
					if err := yaml.Unmarshal(c.s.Default.Raw, &s); err != nil {
						t.Fatalf("%s: spec.deletion.%s default: %v", v.Name, c.field, err)
					}
					got, err := time.ParseDuration(s)
					if err != nil || got != c.want {
						t.Errorf("%s: spec.deletion.%s defaults to %q in the CRD and %s in Go", v.Name, c.field, s, c.want)
					}
				}
			}
		})
	}
}
