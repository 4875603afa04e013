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

package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// TestALostCreateFollowedByACreateRefusedUnsentIsStillAdoptedAndDeleted: a
// provider's create commits in Coder and its answer is lost; before the
// resource finds the provider by name, its ProviderConfig is pointed at
// another Coder, where the look finds nothing and the next create is
// refused unsent (the record names the first Coder). Pointed back, the
// resource must still look for what the lost create wrote: the refused
// attempt says nothing of the earlier one, which only the record knows.
// Before, it took the refusal for the last word, created again, met
// Coder's 409, and the record forgot the lost create: the provider stayed
// in Coder after its resource was deleted, with nothing counted or
// recorded. (Soak seed 777365623978.)
func TestALostCreateFollowedByACreateRefusedUnsentIsStillAdoptedAndDeleted(t *testing.T) {
	c := env.Cluster.Coder(t)
	ns := env.Namespace(t)
	pc := env.ReadyProviderConfigOf(t, ns, c, nil)
	deploymentA := pc.Status.DeploymentID
	b := env.Cluster.SpareCoder(t)
	env.TokenSecret(t, ns, "coder-token-b", b.Token())
	env.Secret(t, ns, "openai", map[string]string{"key": "sk-lost-k3y9Qm2Xv7Lp"})
	// The create commits and its answer is lost; the reads that would find
	// the provider by name fail until the ProviderConfig comes back.
	if err := c.SetFault(fakecoder.EndpointProvidersCreate, fakecoder.Fault{CommitThenTimeout: true, Times: 1}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.ClearFault(fakecoder.EndpointProvidersCreate) })
	if err := c.SetFault(fakecoder.EndpointProviderGet, fakecoder.Fault{Status: 503}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.ClearFault(fakecoder.EndpointProviderGet) })

	p := newAIProvider(ns, "lost", "openai", "https://api.openai.com/v1")
	p.Spec.ForProvider.APIKeySecretRefs = []common.LocalSecretKeySelector{ref("openai", "key")}
	env.Create(t, p)
	name := *p.Spec.ForProvider.Name
	testenv.Eventually(t, testenv.WaitLong, "the lost create's provider in Coder and its attempt on the record", func() (bool, string) {
		rec := recordOf(t, "AIProvider", p.UID)
		rows := providersNamed(c, name)
		return rec != nil && rec.Status.CreateAttemptedAt != nil && len(rows) == 1, fmt.Sprintf("record %v, providers %d", rec != nil, len(rows))
	})
	id := providersNamed(c, name)[0].ID.String()

	repoint := func(url, secret string) {
		t.Helper()
		if err := env.Update(t, pc, func() {
			pc.Spec.URL = url
			pc.Spec.Credentials.SecretRef.Name = secret
		}); err != nil {
			t.Fatal(err)
		}
	}
	repoint(b.URL(), "coder-token-b")
	testenv.Eventually(t, testenv.WaitLong, "a create through the other Coder refused unsent", func() (bool, string) {
		env.Get(t, p)
		m := p.GetCondition(xpv2.TypeSynced).Message
		return strings.Contains(m, "the cleanup record names deployment "+deploymentA), m
	})
	if n := len(providersNamed(b, name)); n != 0 {
		t.Fatalf("the other Coder holds %d providers named %q, want 0: the create was not refused unsent", n, name)
	}

	repoint(c.URL(), "coder-token")
	c.ClearFault(fakecoder.EndpointProviderGet)
	testenv.Eventually(t, testenv.WaitLong, "the resource to adopt the lost create's provider, or give its name up", func() (bool, string) {
		env.Get(t, p)
		m := p.GetCondition(xpv2.TypeSynced).Message
		return meta.GetExternalName(p) != "" || strings.Contains(m, "is taken in Coder"), m
	})
	if got := meta.GetExternalName(p); got != id {
		t.Errorf("external name = %q, want %s, the provider its lost create wrote (condition: %s)", got, id, p.GetCondition(xpv2.TypeSynced).Message)
	}

	env.Delete(t, p)
	env.WaitGone(t, p, testenv.WaitLong)
	if liveProvider(c, id) {
		t.Errorf("the provider %s the lost create wrote is left in Coder after its resource was deleted", id)
	}
	if r := recordOf(t, "AIProvider", p.UID); r != nil {
		t.Errorf("the deleted provider's record is left: %+v", r.Status)
	}
}
