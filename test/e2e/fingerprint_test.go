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
	"time"

	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/util/retry"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/controller/aiprovider"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// TestAIProviderFingerprintFromBeforeKeyingIsUpgradedWithoutSendingTheKeys
// (issue 26, item 12): an upgrade finds statuses whose fingerprint is the
// unkeyed SHA-256 an earlier release wrote. The provider, restarted as an
// upgrade restarts it, replaces each with the keyed HMAC when it
// fingerprints the keys the Secrets hold, and sends nothing to Coder for
// it: an upgrade is no storm of PATCHes. The keyed fingerprint is the same
// after the restart, so the key survived it.
func TestAIProviderFingerprintFromBeforeKeyingIsUpgradedWithoutSendingTheKeys(t *testing.T) {
	c := env.Cluster.SpareCoder(t)
	ns := env.Namespace(t)
	env.ReadyProviderConfigOf(t, ns, c, nil)
	const key = "sk-upgrade-k3y9Qm2Xv7Lp"
	env.Secret(t, ns, "openai", map[string]string{"key": key})
	p := newAIProvider(ns, "upgraded", "openai", "https://api.openai.com/v1")
	p.Spec.ForProvider.APIKeySecretRefs = []common.LocalSecretKeySelector{ref("openai", "key")}
	env.Create(t, p)
	env.WaitCondition(t, p, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	row := providersNamed(c, *p.Spec.ForProvider.Name)[0]
	wantKeyedFingerprint(t, p, row)
	keyed := p.Status.AtProvider.CredentialsFingerprint

	// The earlier release's status, written while no provider runs.
	env.StopProvider()
	legacy := aiprovider.LegacyFingerprint(string(p.UID), aiprovider.Credentials{APIKeys: []string{key}})
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		env.Get(t, p)
		p.Status.AtProvider.CredentialsFingerprint = legacy
		return env.Kube.Status().Update(t.Context(), p)
	}); err != nil {
		t.Fatal(err)
	}
	patches := c.Requests(fakecoder.EndpointProviderUpdate)
	if err := env.StartProvider(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	testenv.Eventually(t, testenv.WaitLong, "the unkeyed fingerprint to be replaced", func() (bool, string) {
		env.Get(t, p)
		return p.Status.AtProvider.CredentialsFingerprint != legacy, "status fingerprint " + p.Status.AtProvider.CredentialsFingerprint
	})
	took := time.Since(start)
	// Two more polls find nothing to send either.
	reads := c.Requests(fakecoder.EndpointProviderGet)
	testenv.Eventually(t, testenv.WaitLong, "two more polls of the provider", func() (bool, string) {
		n := c.Requests(fakecoder.EndpointProviderGet) - reads
		return n >= 2, fmt.Sprintf("%d reads", n)
	})
	sent := c.Requests(fakecoder.EndpointProviderUpdate) - patches
	t.Logf("unkeyed fingerprint replaced %s after the restart, with %d PATCH to Coder", took.Round(10*time.Millisecond), sent)
	if sent != 0 {
		t.Errorf("the upgrade sent %d PATCH requests to Coder, want 0: the keys it fingerprinted were sent already", sent)
	}
	env.Get(t, p)
	if got := p.Status.AtProvider.CredentialsFingerprint; got != keyed {
		t.Errorf("fingerprint after the restart %q, before it %q: want the same, keyed with the same key", got, keyed)
	}
	after := providersNamed(c, *p.Spec.ForProvider.Name)[0]
	if fmt.Sprint(keyIDsOf(after)) != fmt.Sprint(keyIDsOf(row)) || meta.GetExternalName(p) != row.ID.String() {
		t.Errorf("Coder's key ids %v -> %v: the keys were replaced", keyIDsOf(row), keyIDsOf(after))
	}
	wantKeyedFingerprint(t, p, after)
}
