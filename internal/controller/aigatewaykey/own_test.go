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

package aigatewaykey

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/coder/coder/v2/codersdk"
	"github.com/google/uuid"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
)

// The shared list's index narrows a poll to a few candidates: it must
// never leave out a key the resource owns, whatever its name's parts.
func TestTheIndexFindsEveryKeyNameAResourceDerives(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"", "a", "gw", "team-a", "R2", "x--y", "r1", "0b1c2d3e", "a-very-long-namespace-name-that-must-be-shortened-to-fit"}
	pick := func() string { return words[r.IntN(len(words))] }
	for i := range 2000 {
		prefix, ns, name := pick(), pick(), pick()
		uid := uuid.NewString()
		if i%10 == 0 {
			uid = pick() // not a UID's shape: names must still be found
		}
		names := NamesOf(prefix, ns, name, uid)
		n := r.IntN(3) * r.IntN(1000)
		want := RotatedKeyName(prefix, ns, name, uid, n)
		keys := append(noise(r, 50), codersdk.AIGatewayKey{ID: uuid.New(), Name: want})
		found := false
		for _, k := range coder.NewKeyList(keys).Find(names.Word()) {
			if c, ok := names.Counter(k.Name); ok && c == n && k.Name == want {
				found = true
			}
		}
		if !found {
			t.Fatalf("Find(%q) misses %q (prefix %q, namespace %q, name %q, uid %q, counter %d)", names.Word(), want, prefix, ns, name, uid, n)
		}
	}
}

// noise are n keys of other owners.
func noise(r *rand.Rand, n int) []codersdk.AIGatewayKey {
	out := make([]codersdk.AIGatewayKey, n)
	for i := range out {
		out[i] = codersdk.AIGatewayKey{ID: uuid.New(), Name: KeyName("", "team", fmt.Sprint("k", r.Int()), uuid.NewString())}
	}
	return out
}

// BenchmarkOwnAmongAProviderConfigsKeys is what a poll spends finding its
// keys in the shared list: flat in the keys of the ProviderConfig
// (docs/performance.md).
func BenchmarkOwnAmongAProviderConfigsKeys(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1000, 5000, 20000} {
		keys := noise(r, n)
		k := &aiv1alpha1.AIGatewayKey{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "mine", UID: types.UID(uuid.NewString())}}
		keys[n/2] = codersdk.AIGatewayKey{ID: uuid.New(), Name: DerivedName(k)}
		list := coder.NewKeyList(keys)
		b.Run(fmt.Sprint(n, "keys"), func(b *testing.B) {
			for b.Loop() {
				if got := own(k, list, keys[n/2].ID.String()); len(got) != 1 {
					b.Fatalf("own found %d keys, want 1", len(got))
				}
			}
		})
	}
}
