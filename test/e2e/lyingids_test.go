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
	"context"
	"slices"
	"testing"

	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"

	corev1 "k8s.io/api/core/v1"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/controller/aigatewaykey"
	"github.com/crossplane-contrib/provider-coder/internal/deletion"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// A server that answers a create with another object's id: the id counts
// only when a read shows it under the name asked for. Taken, it made the
// resource a co-owner of someone else's object, which its delete then
// deleted.

// TestAKeyCreateAnsweredWithAnotherKeysIDIsNotTaken: the create made the key
// and answered with the id of another tenant's key.
func TestAKeyCreateAnsweredWithAnotherKeysIDIsNotTaken(t *testing.T) {
	c := env.Cluster.Coder(t)
	victimNS := env.Namespace(t)
	env.ProviderConfig(t, victimNS)
	victim := newKey(victimNS, "victim")
	env.Create(t, victim)
	env.WaitCondition(t, victim, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	// The fake answers with the oldest live key's id: someone else's.
	lied := env.Coder.Keys()[0].ID.String()

	ns := env.Namespace(t)
	env.ProviderConfig(t, ns)
	if err := env.Coder.SetFault(fakecoder.EndpointKeysCreate, fakecoder.Fault{AnswerOtherID: true, Times: 1}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Coder.ClearFault(fakecoder.EndpointKeysCreate) })
	k := newKey(ns, "gateway")
	env.Create(t, k)
	env.WaitCondition(t, k, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	own := meta.GetExternalName(k)
	rows := liveKeysNamed(aigatewaykey.DerivedName(k))
	if own == lied || len(rows) != 1 || rows[0].ID.String() != own {
		t.Fatalf("external name %s (the lied id %s), keys named %s: %+v; want the key's own, one", own, lied, aigatewaykey.DerivedName(k), rows)
	}
	if rec := recordOf(t, "AIGatewayKey", k.UID); rec == nil || rec.Status.ExternalID == lied {
		t.Errorf("the key's record %+v names the lied id %s", rec, lied)
	}
	if owned := claimedBy(t, lied); slices.Contains(owned, string(k.UID)) {
		t.Errorf("a record of the key names the lied id %s", lied)
	}

	env.Delete(t, k)
	env.WaitGone(t, k, testenv.WaitLong)
	if !testenv.LiveKey(c, lied) {
		t.Errorf("the key whose id the server lied with, %s, was deleted", lied)
	}
	if testenv.LiveKey(c, own) {
		t.Errorf("the key's own Coder key %s is left", own)
	}
}

// TestAProviderCreateAnsweredWithAnotherProvidersIDIsNotTaken: the same for
// an AI provider, whose spec would otherwise be PATCHed onto the other one.
func TestAProviderCreateAnsweredWithAnotherProvidersIDIsNotTaken(t *testing.T) {
	c := env.Cluster.Coder(t)
	_, victim := victimProvider(t)
	lied := env.Coder.Providers(false)[0]

	ns := env.Namespace(t)
	env.ProviderConfig(t, ns)
	env.Secret(t, ns, "openai", map[string]string{"key": "sk-lied-to-k3y9Qm2Xv7Lp"})
	if err := env.Coder.SetFault(fakecoder.EndpointProvidersCreate, fakecoder.Fault{AnswerOtherID: true, Times: 1}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Coder.ClearFault(fakecoder.EndpointProvidersCreate) })
	p := newAIProvider(ns, "lied-to", "openai", "https://api.openai.com/v1")
	p.Spec.ForProvider.APIKeySecretRefs = []common.LocalSecretKeySelector{ref("openai", "key")}
	env.Create(t, p)
	env.WaitCondition(t, p, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	own := meta.GetExternalName(p)
	if rows := providersNamed(c, *p.Spec.ForProvider.Name); own == lied.ID.String() || len(rows) != 1 || rows[0].ID.String() != own {
		t.Fatalf("external name %s (the lied id %s), providers named %s: %+v; want the provider's own, one", own, lied.ID, *p.Spec.ForProvider.Name, rows)
	}

	env.Delete(t, p)
	env.WaitGone(t, p, testenv.WaitLong)
	if after, ok := env.ProviderRowByID(lied.ID.String()); !ok || after.Name != lied.Name || after.BaseURL != lied.BaseURL {
		t.Errorf("the provider whose id the server lied with changed: %+v (live %t), was %+v", after, ok, lied)
	}
	victimUntouched(t, victim)
}

// claimedBy returns the UIDs of the resources whose records name id.
func claimedBy(t *testing.T, id string) []string {
	t.Helper()
	var out []string
	l := &clusterv1alpha1.CleanupRecordList{}
	if err := env.Kube.List(context.Background(), l); err != nil {
		t.Fatal(err)
	}
	for _, rec := range l.Items {
		if rec.Status.ExternalID == id {
			out = append(out, rec.GetLabels()[deletion.ManagedResourceUIDLabel])
		}
	}
	return out
}
