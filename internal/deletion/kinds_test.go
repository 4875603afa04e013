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

package deletion

import (
	"testing"

	"github.com/crossplane-contrib/provider-coder/apis"
)

// TestEveryManagedKindHasItsObjects: a managed kind whose objects deletion
// does not know could create in Coder what no path deletes, and a
// registered kind no resource has is dead code.
func TestEveryManagedKindHasItsObjects(t *testing.T) {
	managed := map[string]bool{}
	for _, k := range apis.ManagedKinds() {
		managed[k.Kind] = true
		if _, ok := objectsOf(k.Kind); !ok {
			t.Errorf("managed kind %s has no objectKinds entry: register how deletion finds and deletes its objects", k.Kind)
		}
	}
	for _, k := range objectKinds {
		if !managed[k.kind] {
			t.Errorf("objectKinds registers %s, which no managed kind has", k.kind)
		}
		if k.find == nil || k.remove == nil {
			t.Errorf("objectKinds entry %s lacks find or remove", k.kind)
		}
	}
}
