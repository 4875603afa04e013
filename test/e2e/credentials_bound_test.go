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
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// The scenarios of this file are issue 26, item 7: the namespace that holds
// the token and CA Secrets of a cluster-scoped ProviderConfig is deleted
// while that ProviderConfig stands (a common way to uninstall Coder). The
// credentials finalizer keeps the Secrets for the ProviderConfig's bounds,
// counted from the Secrets' deletion, and then lets the namespace go.

// clusterSpecIn is a cluster-scoped ProviderConfig spec of coder whose token
// and CA Secrets live in ns.
func clusterSpecIn(t *testing.T, ns string, coder testenv.Coder) common.ProviderConfigSpec {
	t.Helper()
	env.TokenSecret(t, ns, "coder-token", coder.Token())
	ca := secretOf(ns, "coder-ca")
	ca.Data = map[string][]byte{"ca.crt": selfSignedCA(t)}
	env.Create(t, ca)
	return common.ProviderConfigSpec{
		URL: coder.URL(),
		Credentials: common.Credentials{
			Source: common.CredentialsSourceSecret,
			SecretRef: &common.SecretKeySelector{
				LocalSecretKeySelector: common.LocalSecretKeySelector{Name: "coder-token", Key: testenv.TokenKey},
				Namespace:              ns,
			},
		},
		TLS: &common.TLSConfig{CASecretRef: &common.SecretKeySelector{
			LocalSecretKeySelector: common.LocalSecretKeySelector{Name: "coder-ca", Key: "ca.crt"},
			Namespace:              ns,
		}},
	}
}

// waitCredentialsUnavailable waits for pc to turn not Ready for its
// credentials, with a Warning event saying so.
func waitCredentialsUnavailable(t *testing.T, pc providerconfig.Object) {
	t.Helper()
	testenv.Eventually(t, testenv.WaitLong, "the ProviderConfig to turn not Ready, CredentialsUnavailable", func() (bool, string) {
		env.Get(t, pc)
		c := pc.GetCondition(xpv2.TypeReady)
		return c.Status == corev1.ConditionFalse && c.Reason == providerconfig.ReasonCredentialsUnavailable, fmt.Sprintf("%s %s: %s", c.Status, c.Reason, c.Message)
	})
	testenv.Eventually(t, testenv.WaitLong, "a CredentialsUnavailable event on the ProviderConfig", func() (bool, string) {
		for _, e := range env.Events(t) {
			if e.InvolvedObject.UID == pc.GetUID() && e.Reason == string(providerconfig.ReasonCredentialsUnavailable) && e.Type == corev1.EventTypeWarning {
				return true, ""
			}
		}
		return false, "no event"
	})
}

func TestSecretsOfAStandingClusterProviderConfigDoNotHoldTheirNamespace(t *testing.T) {
	// Measured: about 11 s each, the namespace controller's own passes;
	// before the fix, still Terminating after 120 s.
	const namespaceBound = 45 * time.Second
	coder := env.Cluster.Coder(t)
	cases := map[string]func(name string, spec common.ProviderConfigSpec) providerconfig.Object{
		"ClusterProviderConfig": func(name string, spec common.ProviderConfigSpec) providerconfig.Object {
			return &namespacedv1alpha1.ClusterProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: spec}
		},
		"LegacyProviderConfig": func(name string, spec common.ProviderConfigSpec) providerconfig.Object {
			return &clusterv1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: spec}
		},
	}
	for name, newConfig := range cases {
		t.Run(name, func(t *testing.T) {
			ns := env.Namespace(t)
			pc := newConfig("coder-"+ns, clusterSpecIn(t, ns, coder))
			env.Create(t, pc)
			t.Cleanup(func() { env.Delete(t, pc) })
			env.WaitCondition(t, pc, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
			token, ca := secretOf(ns, "coder-token"), secretOf(ns, "coder-ca")
			waitProtected(t, token)
			waitProtected(t, ca)

			// Uninstalling Coder: its namespace goes, the ProviderConfig stays.
			start := time.Now()
			o := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}
			env.Delete(t, o)
			testenv.Eventually(t, namespaceBound, "namespace "+ns+" to be gone", func() (bool, string) {
				if !env.Get(t, o) {
					return true, ""
				}
				return false, fmt.Sprintf("still %s; token Secret %v, CA Secret %v", o.Status.Phase, secretState(t, token), secretState(t, ca))
			})
			t.Logf("the namespace of a standing %s's token and CA Secrets, with no dependents, was gone %s after its deletion",
				name, time.Since(start).Round(100*time.Millisecond))
			waitCredentialsUnavailable(t, pc)
		})
	}
}

func secretState(t *testing.T, s *corev1.Secret) string {
	t.Helper()
	if !env.Get(t, s) {
		return "gone"
	}
	return fmt.Sprintf("deleting %v, finalizers %v", s.DeletionTimestamp != nil, s.Finalizers)
}

// A standing ClusterProviderConfig's Secret whose namespace is deleted keeps
// serving a dependent that is deleting, for the ClusterProviderConfig's
// dependentTimeout and grace from the Secret's deletion, and then goes. The
// keys are not deleted in Coder: the ClusterProviderConfig cannot reach
// Coder until its Secret exists again, and then the deleting key finishes.
func TestAStandingClusterProviderConfigsSecretServesDeletingDependentsWithinItsBounds(t *testing.T) {
	coder := env.Cluster.Coder(t)
	cpc, secretNS := readyClusterConfig(t, coder)
	tenant := env.Namespace(t)
	live := keyOfClusterConfig(t, tenant, "live", cpc)
	deleting := keyOfClusterConfig(t, tenant, "deleting", cpc)
	liveID, deletingID := meta.GetExternalName(live), meta.GetExternalName(deleting)
	if err := coder.SetFault(fakecoder.EndpointKeysDelete, fakecoder.Fault{Status: 502}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { coder.ClearFault(fakecoder.EndpointKeysDelete) })
	env.Delete(t, deleting)
	testenv.Eventually(t, testenv.WaitLong, "the key's delete to fail in Coder", func() (bool, string) {
		env.Get(t, deleting)
		c := deleting.GetCondition(xpv2.TypeSynced)
		return c.Status == corev1.ConditionFalse, c.Message
	})

	secret := secretOf(secretNS, "coder-token")
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: secretNS}}
	env.Delete(t, ns)
	testenv.Eventually(t, testenv.WaitLong, "the namespace deletion to reach the token Secret", func() (bool, string) {
		return env.Get(t, secret) && secret.DeletionTimestamp != nil, secretState(t, secret)
	})
	deletedAt := secret.DeletionTimestamp.Time
	// The deletion timestamp has second precision: the bound may start up
	// to a second before it says.
	holdsUntil := deletedAt.Add(shortBounds().DependentTimeout.Duration - time.Second)
	// While it is held the ClusterProviderConfig is not Ready: nothing new
	// is created through credentials about to go.
	testenv.Eventually(t, time.Until(holdsUntil), "the ClusterProviderConfig to turn not Ready while its Secret is held", func() (bool, string) {
		env.Get(t, cpc)
		c := cpc.GetCondition(xpv2.TypeReady)
		return c.Status == corev1.ConditionFalse && c.Reason == providerconfig.ReasonCredentialsUnavailable && strings.Contains(c.Message, "is being deleted"),
			fmt.Sprintf("%s %s: %s", c.Status, c.Reason, c.Message)
	})
	testenv.Never(t, time.Until(holdsUntil), "the Secret released while a dependent is deleting, before dependentTimeout", func() (bool, string) {
		return !protectedNow(t, secret), secretState(t, secret)
	})
	env.WaitGone(t, ns, 2*time.Minute)
	t.Logf("with a dependent whose deletes fail, the namespace went %s after the Secret's deletion (dependentTimeout 8s, grace 3s)",
		time.Since(deletedAt).Round(100*time.Millisecond))
	waitCredentialsUnavailable(t, cpc)
	if !testenv.LiveKey(coder, liveID) || !testenv.LiveKey(coder, deletingID) {
		t.Errorf("a key left Coder without a delete that worked: live %v, deleting %v", testenv.LiveKey(coder, liveID), testenv.LiveKey(coder, deletingID))
	}

	// Mended: a Secret in another namespace; the keys then delete.
	coder.ClearFault(fakecoder.EndpointKeysDelete)
	other := env.Namespace(t)
	env.TokenSecret(t, other, "coder-token", coder.Token())
	if err := env.Update(t, cpc, func() { cpc.Spec.Credentials.SecretRef.Namespace = other }); err != nil {
		t.Fatal(err)
	}
	env.WaitCondition(t, cpc, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	env.Delete(t, live)
	env.WaitGone(t, live, testenv.WaitLong)
	// Its retries back off while the credentials were gone: up to a minute.
	env.WaitGone(t, deleting, 2*testenv.WaitLong)
	if testenv.LiveKey(coder, liveID) || testenv.LiveKey(coder, deletingID) {
		t.Errorf("a key is still in Coder after its delete: live %v, deleting %v", testenv.LiveKey(coder, liveID), testenv.LiveKey(coder, deletingID))
	}
}

// eventsOf returns the reasons and messages of the events about uid.
func eventsOf(t *testing.T, uid string) []string {
	t.Helper()
	var out []string
	for _, e := range env.Events(t) {
		if string(e.InvolvedObject.UID) == uid {
			out = append(out, e.Reason+": "+e.Message)
		}
	}
	return out
}

// eventWith reports whether an event about uid has the reason and a message
// containing every part.
func eventWith(t *testing.T, uid, reason string, parts ...string) bool {
	t.Helper()
	for _, e := range eventsOf(t, uid) {
		r, msg, _ := strings.Cut(e, ": ")
		all := r == reason
		for _, p := range parts {
			all = all && strings.Contains(msg, p)
		}
		if all {
			return true
		}
	}
	return false
}
