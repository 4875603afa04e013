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
	"testing"

	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"

	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/controller/aigatewaykey"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// A deleting resource decides absence over what its cleanup records name,
// whatever its external name and annotations say: anyone who may edit the
// resource may have set them. Before, each of these deletes left the object
// in Coder and deleted its record, so nothing was counted and nothing swept
// it.

// TestADeletingKeyNamingASiblingsKeyDeletesItsOwn: a key's external name set
// to a sibling's key id, then the key deleted. The sibling's key is another
// resource's, so the key's own look stopped there and called it gone.
func TestADeletingKeyNamingASiblingsKeyDeletesItsOwn(t *testing.T) {
	onBothCodersWithKeys(t, func(t *testing.T, c testenv.Coder) {
		ns := env.Namespace(t)
		env.ReadyProviderConfigOf(t, ns, c, nil)
		a, b := newKey(ns, "gateway-a"), newKey(ns, "gateway-b")
		env.Create(t, a)
		env.Create(t, b)
		env.WaitCondition(t, a, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
		env.WaitCondition(t, b, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
		own, sibling := meta.GetExternalName(a), meta.GetExternalName(b)

		if err := env.Update(t, a, func() { meta.SetExternalName(a, sibling) }); err != nil {
			t.Fatal(err)
		}
		env.Delete(t, a)
		env.WaitGone(t, a, testenv.WaitLong)
		if testenv.LiveKey(c, own) {
			t.Errorf("the deleted key's own Coder key %s (%s) is still there", own, aigatewaykey.DerivedName(a))
		}
		if !testenv.LiveKey(c, sibling) {
			t.Errorf("the sibling's key %s was deleted", sibling)
		}
		if r := recordOf(t, "AIGatewayKey", a.UID); r != nil {
			t.Errorf("the deleted key's record is left: %+v", r.Status)
		}
		env.WaitCondition(t, b, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
		if meta.GetExternalName(b) != sibling {
			t.Errorf("the sibling's external name is %q, want its key %s", meta.GetExternalName(b), sibling)
		}
	})
}

// TestADeletingProviderNamingAnUnknownIDDeletesItsOwn: a provider's external
// name set to an id nobody has; Coder's 404 for it was taken for the
// provider's absence.
func TestADeletingProviderNamingAnUnknownIDDeletesItsOwn(t *testing.T) {
	onBothCoders(t, func(t *testing.T, c testenv.Coder) {
		ns := env.Namespace(t)
		env.ReadyProviderConfigOf(t, ns, c, nil)
		env.Secret(t, ns, "openai", map[string]string{"key": "sk-renamed-k3y9Qm2Xv7Lp"})
		p := newAIProvider(ns, "renamed", "openai", "https://api.openai.com/v1")
		p.Spec.ForProvider.APIKeySecretRefs = []common.LocalSecretKeySelector{ref("openai", "key")}
		env.Create(t, p)
		env.WaitCondition(t, p, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
		id := meta.GetExternalName(p)

		if err := env.Update(t, p, func() { meta.SetExternalName(p, uuid.NewString()) }); err != nil {
			t.Fatal(err)
		}
		env.Delete(t, p)
		env.WaitGone(t, p, testenv.WaitLong)
		if liveProvider(c, id) {
			t.Errorf("the deleted provider's own Coder provider %s is still there", id)
		}
		if r := recordOf(t, "AIProvider", p.UID); r != nil {
			t.Errorf("the deleted provider's record is left: %+v", r.Status)
		}
	})
}

// TestADeletingProviderWithAForgedRefusalDeletesWhatItsAttemptWrote: a
// create whose answer was lost wrote a provider that was not adopted yet
// (Coder failed the reads that would find it); the resource is deleted and
// the refused-create annotation forged, which said the attempt wrote
// nothing while the provider read it (it no longer does: only the record
// proves an attempt). The provider's own look then skipped the search by
// name.
func TestADeletingProviderWithAForgedRefusalDeletesWhatItsAttemptWrote(t *testing.T) {
	c := env.Cluster.Coder(t)
	ns := env.Namespace(t)
	env.ReadyProviderConfigOf(t, ns, c, nil)
	env.Secret(t, ns, "openai", map[string]string{"key": "sk-forged-k3y9Qm2Xv7Lp"})
	if err := c.SetFault(fakecoder.EndpointProvidersCreate, fakecoder.Fault{CommitThenTimeout: true, Times: 1}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.ClearFault(fakecoder.EndpointProvidersCreate) })
	if err := c.SetFault(fakecoder.EndpointProviderGet, fakecoder.Fault{Status: 503}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.ClearFault(fakecoder.EndpointProviderGet) })
	p := newAIProvider(ns, "forged", "openai", "https://api.openai.com/v1")
	p.Spec.ForProvider.APIKeySecretRefs = []common.LocalSecretKeySelector{ref("openai", "key")}
	env.Create(t, p)
	name := *p.Spec.ForProvider.Name
	testenv.Eventually(t, testenv.WaitLong, "the lost create's provider in Coder and its attempt on the record", func() (bool, string) {
		rec := recordOf(t, "AIProvider", p.UID)
		rows := providersNamed(c, name)
		return rec != nil && rec.Status.CreateAttemptedAt != nil && len(rows) == 1, fmt.Sprintf("record %v, providers %d", rec != nil, len(rows))
	})
	id := providersNamed(c, name)[0].ID.String()

	env.Delete(t, p)
	if err := env.Update(t, p, func() {
		meta.AddAnnotations(p, map[string]string{"coder.crossplane.io/refused-create": p.GetAnnotations()[meta.AnnotationKeyExternalCreatePending]})
	}); err != nil {
		t.Fatal(err)
	}
	c.ClearFault(fakecoder.EndpointProviderGet)
	env.WaitGone(t, p, testenv.WaitLong)
	if liveProvider(c, id) {
		t.Errorf("the provider %s the lost create wrote is still in Coder", id)
	}
	if r := recordOf(t, "AIProvider", p.UID); r != nil {
		t.Errorf("the deleted provider's record is left: %+v", r.Status)
	}
}
