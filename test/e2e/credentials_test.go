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
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	namespacedv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
)

// releaseBound is how soon a Secret no ProviderConfig needs loses the
// credentials finalizer: one watch event and one reconcile, so seconds.
const releaseBound = 10 * time.Second

func secretOf(ns, name string) *corev1.Secret {
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
}

// protectedNow reports whether the Secret exists and carries the
// credentials finalizer.
func protectedNow(t *testing.T, s *corev1.Secret) bool {
	t.Helper()
	return env.Get(t, s) && meta.FinalizerExists(s, providerconfig.CredentialsFinalizer)
}

func waitProtected(t *testing.T, s *corev1.Secret) {
	t.Helper()
	testenv.Eventually(t, testenv.WaitLong, "Secret "+s.Namespace+"/"+s.Name+" to carry "+providerconfig.CredentialsFinalizer, func() (bool, string) {
		return protectedNow(t, s), fmt.Sprint(s.Finalizers)
	})
}

// waitReleased waits until the Secret has lost the credentials finalizer
// (or is gone) and returns how long that took.
func waitReleased(t *testing.T, s *corev1.Secret, bound time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	testenv.Eventually(t, bound, "Secret "+s.Namespace+"/"+s.Name+" to lose "+providerconfig.CredentialsFinalizer, func() (bool, string) {
		return !protectedNow(t, s), fmt.Sprint(s.Finalizers)
	})
	return time.Since(start)
}

func TestCredentialsFinalizerLeavesARepointedTokenSecret(t *testing.T) {
	ns := env.Namespace(t)
	pc := env.ProviderConfig(t, ns)
	old, rotated := secretOf(ns, "coder-token"), secretOf(ns, "coder-token-2")
	waitProtected(t, old)
	env.TokenSecret(t, ns, rotated.Name, env.Cluster.Coder(t).Token())

	// The normal way to rotate a Coder token.
	if err := env.Update(t, pc, func() { pc.Spec.Credentials.SecretRef.Name = rotated.Name }); err != nil {
		t.Fatal(err)
	}
	waitProtected(t, rotated)
	took := waitReleased(t, old, releaseBound)
	t.Logf("the repointed-away token Secret was released %s after the new one was protected", took.Round(10*time.Millisecond))

	env.Delete(t, old)
	env.WaitGone(t, old, releaseBound)
	env.WaitCondition(t, pc, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	if !protectedNow(t, rotated) {
		t.Errorf("the Secret the ProviderConfig now reads lost its protection: %v", rotated.Finalizers)
	}
}

func TestCredentialsFinalizerLeavesARemovedCASecret(t *testing.T) {
	ns := env.Namespace(t)
	caSecret := secretOf(ns, "coder-ca")
	caSecret.Data = map[string][]byte{"ca.crt": selfSignedCA(t)}
	env.Create(t, caSecret)
	pc := env.ReadyProviderConfigOf(t, ns, env.Cluster.Coder(t), func(pc *namespacedv1alpha1.ProviderConfig) {
		pc.Spec.TLS = &common.LocalTLSConfig{CASecretRef: &common.LocalSecretKeySelector{Name: caSecret.Name, Key: "ca.crt"}}
	})
	token := secretOf(ns, "coder-token")
	waitProtected(t, caSecret)
	waitProtected(t, token)

	if err := env.Update(t, pc, func() { pc.Spec.TLS = nil }); err != nil {
		t.Fatal(err)
	}
	took := waitReleased(t, caSecret, releaseBound)
	t.Logf("the CA Secret was released %s after tls.caSecretRef was removed", took.Round(10*time.Millisecond))
	env.Delete(t, caSecret)
	env.WaitGone(t, caSecret, releaseBound)
	if !protectedNow(t, token) {
		t.Errorf("the token Secret, still read, lost its protection: %v", token.Finalizers)
	}
}

func TestCredentialsFinalizerLeavesSharedSecretsWhenNamespacesAreDeleted(t *testing.T) {
	// Measured: about 14s, most of it the namespace controller's own
	// passes; before the fix, 5 of 6 stayed Terminating for good.
	const namespaces, configs, namespacesBound = 6, 4, 45 * time.Second
	coder := env.Cluster.Coder(t)
	var nss []string
	var pcs []*namespacedv1alpha1.ProviderConfig
	for range namespaces {
		ns := env.Namespace(t)
		nss = append(nss, ns)
		env.TokenSecret(t, ns, "coder-token", coder.Token())
		for i := range configs {
			pcs = append(pcs, env.ProviderConfigFromSecretNamed(t, ns, fmt.Sprintf("pc-%d", i), "coder-token"))
		}
	}
	for _, pc := range pcs {
		env.WaitCondition(t, pc, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	}
	for _, ns := range nss {
		waitProtected(t, secretOf(ns, "coder-token"))
	}

	start := time.Now()
	for _, ns := range nss {
		env.Delete(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	}
	var wg sync.WaitGroup
	took := make([]time.Duration, len(nss))
	for i, ns := range nss {
		wg.Go(func() {
			o := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}
			testenv.Eventually(t, namespacesBound, "namespace "+ns+" to be gone", func() (bool, string) {
				if !env.Get(t, o) {
					return true, ""
				}
				s := secretOf(ns, "coder-token")
				return false, fmt.Sprintf("still %s; its token Secret exists: %v, finalizers %v", o.Status.Phase, env.Get(t, s), s.Finalizers)
			})
			took[i] = time.Since(start)
		})
	}
	wg.Wait()
	slowest := time.Duration(0)
	for _, d := range took {
		slowest = max(slowest, d)
	}
	t.Logf("%d namespaces of %d ProviderConfigs sharing one token Secret each, deleted at once: all gone in %s (each: %v)",
		namespaces, configs, slowest.Round(100*time.Millisecond), roundAll(took))
}

func TestCredentialsFinalizerLeavesWhenTheHoldIsStrippedByHand(t *testing.T) {
	ns := env.Namespace(t)
	pc := env.ProviderConfig(t, ns)
	secret := secretOf(ns, "coder-token")
	waitProtected(t, secret)
	// A live dependent makes the hold wait (liveDependentTimeout, 30s by
	// default), long enough for an impatient operator.
	k := newKey(ns, "gateway")
	env.Create(t, k)
	env.WaitCondition(t, k, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	env.Delete(t, pc)
	testenv.Eventually(t, testenv.WaitLong, "the ProviderConfig to hold", func() (bool, string) {
		env.Get(t, pc)
		return pc.Status.Hold != nil, "no status.hold"
	})

	if err := env.Update(t, pc, func() { pc.SetFinalizers(nil) }); err != nil {
		t.Fatal(err)
	}
	env.WaitGone(t, pc, releaseBound)
	took := waitReleased(t, secret, releaseBound)
	t.Logf("the Secret of a ProviderConfig whose hold was stripped by hand was released %s after it went", took.Round(10*time.Millisecond))

	// Give the key its ProviderConfig back so it deletes in Coder, rather
	// than leaving a release without delete to later scenarios' counts.
	env.Create(t, testenv.ProviderConfigOf(ns, "default", env.Cluster.Coder(t).URL(), secret.Name))
	env.WaitCondition(t, &namespacedv1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "default"}}, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	env.Delete(t, k)
	env.WaitGone(t, k, testenv.WaitLong)
}

func TestCredentialsReleasedForAProviderConfigThatVanishedWhileTheProviderWasStopped(t *testing.T) {
	if !testenv.IsLocal(env.Cluster) {
		t.Skip("stops the provider in this process")
	}
	ns := env.Namespace(t)
	pc := env.ProviderConfig(t, ns)
	secret := secretOf(ns, "coder-token")
	waitProtected(t, secret)

	env.StopProvider()
	t.Cleanup(func() {
		if err := env.StartProvider(); err != nil {
			t.Error(err)
		}
	})
	// Nobody runs its hold: the operator unsticks it by hand.
	env.Delete(t, pc)
	if err := env.Update(t, pc, func() { pc.SetFinalizers(nil) }); err != nil {
		t.Fatal(err)
	}
	env.WaitGone(t, pc, releaseBound)
	if !protectedNow(t, secret) {
		t.Fatalf("the Secret was released while the provider was stopped: %v", secret.Finalizers)
	}

	if err := env.StartProvider(); err != nil {
		t.Fatal(err)
	}
	took := waitReleased(t, secret, 30*time.Second)
	t.Logf("the Secret of a ProviderConfig that vanished while the provider was stopped was released %s after it started", took.Round(10*time.Millisecond))
}

func TestCredentialsFinalizerSharedByClusterAndLegacyProviderConfigs(t *testing.T) {
	ns := env.Namespace(t)
	coder := env.Cluster.Coder(t)
	env.TokenSecret(t, ns, "coder-token", coder.Token())
	secret := secretOf(ns, "coder-token")
	spec := common.ProviderConfigSpec{
		URL: coder.URL(),
		Credentials: common.Credentials{
			Source: common.CredentialsSourceSecret,
			SecretRef: &common.SecretKeySelector{
				LocalSecretKeySelector: common.LocalSecretKeySelector{Name: secret.Name, Key: testenv.TokenKey},
				Namespace:              ns,
			},
		},
	}
	cpc := &namespacedv1alpha1.ClusterProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "cpc-" + ns}, Spec: *spec.DeepCopy()}
	legacy := &clusterv1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "legacy-" + ns}, Spec: *spec.DeepCopy()}
	for _, o := range []providerconfig.Object{cpc, legacy} {
		env.Create(t, o)
		t.Cleanup(func() { env.Delete(t, o) })
		env.WaitCondition(t, o, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	}
	waitProtected(t, secret)

	from := len(env.Cluster.ProviderLogs(t))
	env.Delete(t, cpc)
	env.WaitGone(t, cpc, testenv.WaitLong)
	// The controller decides on the ClusterProviderConfig's deletion from
	// a fresh list: it either names the legacy ProviderConfig as the one
	// that still needs the Secret, or releases it.
	released := ""
	testenv.Eventually(t, testenv.WaitLong, "the credentials controller to decide on the Secret", func() (bool, string) {
		logs := env.Cluster.ProviderLogs(t)[from:]
		released = logLine(logs, "Released credentials Secret", ns+"/coder-token")
		return released != "" || logLine(logs, "Credentials Secret still needed", ns+"/coder-token", "ProviderConfig "+legacy.Name) != "", "no decision logged"
	})
	if released != "" {
		t.Errorf("the Secret was released while the legacy ProviderConfig still reads it: %s", released)
	}
	if !protectedNow(t, secret) {
		t.Fatalf("the Secret lost its protection while the legacy ProviderConfig still reads it: %v", secret.Finalizers)
	}

	env.Delete(t, legacy)
	env.WaitGone(t, legacy, testenv.WaitLong)
	took := waitReleased(t, secret, releaseBound)
	t.Logf("the Secret shared by a ClusterProviderConfig and a legacy ProviderConfig was released %s after the second went", took.Round(10*time.Millisecond))
}

// logLine returns the first line of logs that contains every part.
func logLine(logs string, parts ...string) string {
	for l := range strings.SplitSeq(logs, "\n") {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(l, p)
		}
		if all {
			return l
		}
	}
	return ""
}

func roundAll(ds []time.Duration) []string {
	out := make([]string, 0, len(ds))
	for _, d := range ds {
		out = append(out, d.Round(100*time.Millisecond).String())
	}
	return out
}

// selfSignedCA is a PEM CA certificate; the fake Coder serves plain HTTP,
// so it is read and parsed but never used to verify anything.
func selfSignedCA(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "provider-coder test CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}
