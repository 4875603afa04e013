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
	"crypto/sha256"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"

	"github.com/coder/coder/v2/codersdk"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	clusteraiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/ai/v1alpha1"
	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/controller/aigatewaykey"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

func newKey(ns, name string) *aiv1alpha1.AIGatewayKey {
	k := &aiv1alpha1.AIGatewayKey{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	k.Spec.ProviderConfigReference = testenv.PCRef()
	k.Spec.WriteConnectionSecretToReference = &xpv2.LocalSecretReference{Name: name + "-conn"}
	return k
}

// liveKeysNamed returns the fake's keys whose name is the derived name of k.
func liveKeysNamed(name string) []fakecoder.KeyRow {
	var out []fakecoder.KeyRow
	for _, k := range env.Coder.Keys() {
		if k.Name == name {
			out = append(out, k)
		}
	}
	return out
}

func TestKeyCreatePublishesTheStoredKeyAndDeleteRemovesIt(t *testing.T) {
	ns := env.Namespace(t)
	env.ProviderConfig(t, ns)
	k := newKey(ns, "gateway")
	env.Create(t, k)
	env.WaitCondition(t, k, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)

	name := aigatewaykey.DerivedName(k)
	rows := liveKeysNamed(name)
	if len(rows) != 1 {
		t.Fatalf("fake holds %d keys named %q, want 1", len(rows), name)
	}
	row := rows[0]
	if got := meta.GetExternalName(k); got != row.ID.String() {
		t.Errorf("external name = %q, want the Coder key id %q", got, row.ID)
	}
	at := k.Status.AtProvider
	if at.ID != row.ID.String() || at.Name != name || at.KeyPrefix != row.KeyPrefix || at.CreatedAt == nil {
		t.Errorf("status.atProvider = %+v, want id %s name %s keyPrefix %s and createdAt", at, row.ID, name, row.KeyPrefix)
	}

	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "gateway-conn"}}
	testenv.Eventually(t, testenv.WaitLong, "the connection Secret", func() (bool, string) {
		if !env.Get(t, s) {
			return false, "no Secret"
		}
		return len(s.Data[aigatewaykey.ConnectionKey]) > 0, fmt.Sprintf("keys %v", keysOf(s.Data))
	})
	if sha256.Sum256(s.Data[aigatewaykey.ConnectionKey]) != sha256.Sum256([]byte(row.Key)) {
		t.Errorf("the connection Secret's key is not the key Coder stored")
	}
	want := map[string]string{
		aigatewaykey.ConnectionKeyPrefix: row.KeyPrefix,
		aigatewaykey.ConnectionID:        row.ID.String(),
		aigatewaykey.ConnectionName:      name,
		aigatewaykey.ConnectionURL:       env.Coder.URL(),
	}
	for key, v := range want {
		if got := string(s.Data[key]); got != v {
			t.Errorf("connection detail %s = %q, want %q", key, got, v)
		}
	}

	env.Delete(t, k)
	env.WaitGone(t, k, testenv.WaitLong)
	wantChanges(t, k, change{op: opCreate}, change{op: opDelete})
	if env.Get(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "gateway-conn"}}) {
		t.Errorf("the connection Secret of a revoked key outlived its object")
	}
	if n := len(liveKeysNamed(name)); n != 0 {
		t.Errorf("after delete the fake still holds %d keys named %q", n, name)
	}
}

func TestKeyUncertainCreateEndsWithExactlyOneKey(t *testing.T) {
	ns := env.Namespace(t)
	env.ProviderConfig(t, ns)
	// The first create is written in Coder but its response never arrives:
	// the plaintext is lost, so that key must be deleted and created again.
	if err := env.Coder.SetFault(fakecoder.EndpointKeysCreate, fakecoder.Fault{CommitThenTimeout: true, Times: 1}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Coder.ClearFault(fakecoder.EndpointKeysCreate) })
	before := env.Coder.Requests(fakecoder.EndpointKeysCreate)

	k := newKey(ns, "uncertain")
	env.Create(t, k)
	env.WaitCondition(t, k, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)

	if n := env.Coder.Requests(fakecoder.EndpointKeysCreate) - before; n < 2 {
		t.Errorf("key creates = %d, want at least 2 (one lost, one kept)", n)
	}
	rows := liveKeysNamed(aigatewaykey.DerivedName(k))
	if len(rows) != 1 {
		t.Fatalf("fake holds %d live keys for the object, want exactly 1", len(rows))
	}
	if got := meta.GetExternalName(k); got != rows[0].ID.String() {
		t.Errorf("external name = %q, want the surviving key %s", got, rows[0].ID)
	}
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "uncertain-conn"}}
	testenv.Eventually(t, testenv.WaitLong, "the connection Secret", func() (bool, string) {
		return env.Get(t, s) && string(s.Data[aigatewaykey.ConnectionKey]) == rows[0].Key, "secret key differs from the surviving key"
	})
}

// A copy of a key read before its create was persisted (the provider's
// cache lags the API server) has no external name, as does a key whose
// external name the reconciler failed to persist. Coder holds a key of its
// name, but the key is not lost: its plaintext is in the Secret. The
// provider keeps that key; replacing it would revoke what consumers hold.
// Under load on the real Coder this replaced half of all new keys
// (docs/performance.md).
func TestKeyWhoseExternalNameIsLostKeepsItsPublishedKey(t *testing.T) {
	ns := env.Namespace(t)
	env.ProviderConfig(t, ns)
	k := newKey(ns, "forgotten")
	env.Create(t, k)
	env.WaitCondition(t, k, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	id := meta.GetExternalName(k)
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "forgotten-conn"}}
	testenv.Eventually(t, testenv.WaitLong, "the connection Secret", func() (bool, string) {
		return env.Get(t, s) && string(s.Data[aigatewaykey.ConnectionID]) == id, "no Secret of the key"
	})
	plaintext := sha256.Sum256(s.Data[aigatewaykey.ConnectionKey])
	creates := env.Coder.Requests(fakecoder.EndpointKeysCreate)

	if err := env.Update(t, k, func() { delete(k.Annotations, meta.AnnotationKeyExternalName) }); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, testenv.WaitLong, "the external name back", func() (bool, string) {
		env.Get(t, k)
		return meta.GetExternalName(k) == id, fmt.Sprintf("external name %q, want %s", meta.GetExternalName(k), id)
	})
	if n := env.Coder.Requests(fakecoder.EndpointKeysCreate) - creates; n != 0 {
		t.Errorf("%d keys created after the external name was lost, want 0", n)
	}
	rows := liveKeysNamed(aigatewaykey.DerivedName(k))
	if len(rows) != 1 || rows[0].ID.String() != id {
		t.Errorf("Coder holds %d keys of the object, want only the published %s", len(rows), id)
	}
	env.Get(t, s)
	if sha256.Sum256(s.Data[aigatewaykey.ConnectionKey]) != plaintext {
		t.Errorf("the connection Secret's key changed")
	}
}

func TestKeyRecreatedWithSameNameGetsANewKey(t *testing.T) {
	ns := env.Namespace(t)
	env.ProviderConfig(t, ns)
	first := newKey(ns, "same")
	env.Create(t, first)
	env.WaitCondition(t, first, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	firstID := meta.GetExternalName(first)

	env.Delete(t, first)
	env.WaitGone(t, first, testenv.WaitLong)
	second := newKey(ns, "same")
	env.Create(t, second)
	// The first incarnation's connection Secret went with it, so the second
	// publishes its own at once instead of waiting for garbage collection.
	env.WaitCondition(t, second, xpv2.TypeReady, corev1.ConditionTrue, 15*time.Second)
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "same-conn"}}
	testenv.Eventually(t, 15*time.Second, "the second incarnation's connection Secret", func() (bool, string) {
		return env.Get(t, s) && string(s.Data[aigatewaykey.ConnectionID]) == meta.GetExternalName(second), "Secret missing or not the second key's"
	})

	if meta.GetExternalName(second) == firstID {
		t.Fatalf("the re-created object adopted the earlier incarnation's key %s", firstID)
	}
	if aigatewaykey.DerivedName(second) == aigatewaykey.DerivedName(first) {
		t.Errorf("both incarnations derive the Coder name %q", aigatewaykey.DerivedName(first))
	}
	for _, row := range env.Coder.Keys() {
		if row.ID.String() == firstID {
			t.Errorf("the first incarnation's key %s is still in Coder", firstID)
		}
	}
}

func TestKeyWithoutDeletePolicyStaysInCoder(t *testing.T) {
	t.Run("NamespacedManagementPolicies", func(t *testing.T) {
		ns := env.Namespace(t)
		env.ProviderConfig(t, ns)
		k := newKey(ns, "kept")
		k.Spec.ManagementPolicies = xpv2.ManagementPolicies{
			xpv2.ManagementActionObserve, xpv2.ManagementActionCreate,
			xpv2.ManagementActionUpdate, xpv2.ManagementActionLateInitialize,
		}
		env.Create(t, k)
		env.WaitCondition(t, k, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
		id := meta.GetExternalName(k)
		env.Delete(t, k)
		env.WaitGone(t, k, testenv.WaitLong)
		if !hasKeyID(id) {
			t.Errorf("key %s was deleted in Coder although the policies do not allow Delete", id)
		}
	})
	t.Run("ClusterOrphan", func(t *testing.T) {
		ns := env.Namespace(t)
		env.TokenSecret(t, ns, "coder-token", env.Coder.Token())
		pc := clusterPC(ns, strings.ToLower(ns))
		env.Create(t, pc)
		t.Cleanup(func() { env.Delete(t, pc) })
		k := &clusteraiv1alpha1.AIGatewayKey{ObjectMeta: metav1.ObjectMeta{Name: ns + "-orphan"}}
		k.Spec.ProviderConfigReference = &xpv2.Reference{Name: pc.Name}
		k.Spec.DeletionPolicy = xpv2.DeletionOrphan
		env.Create(t, k)
		env.WaitCondition(t, k, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
		id := meta.GetExternalName(k)
		env.Delete(t, k)
		env.WaitGone(t, k, testenv.WaitLong)
		if !hasKeyID(id) {
			t.Errorf("key %s was deleted in Coder although deletionPolicy is Orphan", id)
		}
	})
}

func TestKeyObserveOnlyImportShowsStatus(t *testing.T) {
	ns := env.Namespace(t)
	env.ProviderConfig(t, ns)
	// A key made by hand in Coder, e.g. with `coder ai-gateway keys create`.
	row := createKeyInCoder(t, "made-by-hand-"+ns)

	k := newKey(ns, "imported")
	k.Spec.ManagementPolicies = xpv2.ManagementPolicies{xpv2.ManagementActionObserve}
	meta.SetExternalName(k, row.ID.String())
	env.Create(t, k)
	env.WaitCondition(t, k, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	if k.Status.AtProvider.Name != row.Name || k.Status.AtProvider.KeyPrefix != row.KeyPrefix {
		t.Errorf("status.atProvider = %+v, want name %s and keyPrefix %s", k.Status.AtProvider, row.Name, row.KeyPrefix)
	}
	env.Delete(t, k)
	env.WaitGone(t, k, testenv.WaitLong)
	if !hasKeyID(row.ID.String()) {
		t.Errorf("an Observe-only key was deleted in Coder")
	}
}

func TestKeyForbiddenNamesTheCause(t *testing.T) {
	ns := env.Namespace(t)
	env.ProviderConfig(t, ns)
	env.Coder.SetLicensed(false)
	t.Cleanup(func() { env.Coder.SetLicensed(true) })
	k := newKey(ns, "unlicensed")
	env.Create(t, k)
	// The first Synced=False may be a lagging cache's ("has not reported
	// Coder's deployment id yet"): wait for the one that names the licence.
	testenv.Eventually(t, testenv.WaitLong, "Synced False saying Coder is not licensed for AI Gateway", func() (bool, string) {
		if !env.Get(t, k) {
			return false, "the key is not there"
		}
		c := k.GetCondition(xpv2.TypeSynced)
		return c.Status == corev1.ConditionFalse && strings.Contains(strings.ToLower(c.Message), "licens"),
			fmt.Sprintf("Synced %s: %q", c.Status, c.Message)
	})

	env.Coder.SetLicensed(true)
	env.Coder.SetOwner(false)
	t.Cleanup(func() { env.Coder.SetOwner(true) })
	k2 := newKey(ns, "member")
	env.Create(t, k2)
	c := env.WaitCondition(t, k2, xpv2.TypeSynced, corev1.ConditionFalse, testenv.WaitLong)
	if !strings.Contains(c.Message, "Owner") {
		t.Errorf("Synced message %q does not say the token's user must be an Owner", c.Message)
	}
}

func TestProviderConfigWithWrongTokenIsNotReady(t *testing.T) {
	ns := env.Namespace(t)
	env.TokenSecret(t, ns, "coder-token", "wrongtoken-0123456789abcdefghijkl")
	pc := env.ProviderConfigFromSecret(t, ns, "coder-token")
	c := env.WaitCondition(t, pc, xpv2.TypeReady, corev1.ConditionFalse, testenv.WaitLong)
	if c.Reason != "Unauthorized" || c.Message == "" {
		t.Errorf("Ready = %s/%q, want reason Unauthorized with a message", c.Reason, c.Message)
	}

	ns2 := env.Namespace(t)
	good := env.ProviderConfig(t, ns2)
	c = env.WaitCondition(t, good, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	if good.Status.DeploymentID == "" || good.Status.Version == "" {
		t.Errorf("status = %+v, want deploymentID and version from buildinfo", good.Status)
	}
}

func TestManyKeysShareOneListPerProviderConfig(t *testing.T) {
	const n = 200
	ns := env.Namespace(t)
	pc := env.ProviderConfig(t, ns)
	start := time.Now()
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			env.Create(t, newKey(ns, fmt.Sprintf("k%03d", i)))
		}()
	}
	wg.Wait()
	testenv.Eventually(t, 3*time.Minute, fmt.Sprintf("%d keys Ready", n), func() (bool, string) {
		ready := readyKeys(t, ns)
		return ready == n, fmt.Sprintf("%d of %d Ready", ready, n)
	})
	t.Logf("%d keys created and Ready in %s", n, time.Since(start).Round(time.Millisecond))

	// Steady state: every key observes once per poll. Listing per key would
	// cost n lists per poll; one shared list per TTL costs window/TTL.
	// Three polls, so every key observes at least twice.
	window := 3 * env.Options.PollInterval
	// The fake counts the lists of every ProviderConfig, and other
	// scenarios' keys poll too: allow for them, and still stay two orders of
	// magnitude below listing per key.
	limit := n / 10
	before := env.Coder.Requests(fakecoder.EndpointKeysList)
	testenv.Never(t, window, fmt.Sprintf("more than %d key list requests (about one per %s TTL per ProviderConfig)", limit, env.Options.KeyListTTL), func() (bool, string) {
		lists := env.Coder.Requests(fakecoder.EndpointKeysList) - before
		return lists > limit, fmt.Sprintf("%d key list requests", lists)
	})
	lists := env.Coder.Requests(fakecoder.EndpointKeysList) - before
	t.Logf("%d Ready keys polled every %s for %s: %d key list requests (per-key listing would need about %d)",
		n, env.Options.PollInterval, window, lists, 3*n)
	if ready := readyKeys(t, ns); ready != n {
		t.Errorf("%d of %d keys Ready after the window", ready, n)
	}
	testenv.Eventually(t, testenv.WaitLong, "status.users to count the keys", func() (bool, string) {
		env.Get(t, pc)
		return pc.Status.Users == n, fmt.Sprintf("users = %d", pc.Status.Users)
	})
}

func readyKeys(t *testing.T, ns string) int {
	t.Helper()
	l := &aiv1alpha1.AIGatewayKeyList{}
	if err := env.Kube.List(context.Background(), l, client.InNamespace(ns)); err != nil {
		t.Fatalf("cannot list keys: %v", err)
	}
	ready := 0
	for _, k := range l.Items {
		if k.GetCondition(xpv2.TypeReady).Status == corev1.ConditionTrue {
			ready++
		}
	}
	return ready
}

func clusterPC(secretNS, name string) *clusterv1alpha1.ProviderConfig {
	return &clusterv1alpha1.ProviderConfig{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: common.ProviderConfigSpec{
			URL: env.Coder.URL(),
			Credentials: common.Credentials{
				Source: common.CredentialsSourceSecret,
				SecretRef: &common.SecretKeySelector{
					LocalSecretKeySelector: common.LocalSecretKeySelector{Name: "coder-token", Key: testenv.TokenKey},
					Namespace:              secretNS,
				},
			},
		},
	}
}

func hasKeyID(id string) bool {
	for _, row := range env.Coder.Keys() {
		if row.ID.String() == id {
			return true
		}
	}
	return false
}

func keysOf(m map[string][]byte) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// createKeyInCoder creates a key directly in Coder, as an operator would
// with the coder CLI, and returns the fake's row for it.
func createKeyInCoder(t *testing.T, name string) fakecoder.KeyRow {
	t.Helper()
	resp, err := env.CoderClient(t).CreateAIGatewayKey(context.Background(), codersdk.CreateAIGatewayKeyRequest{Name: name})
	if err != nil {
		t.Fatalf("cannot create key in Coder: %v", err)
	}
	for _, k := range env.Coder.Keys() {
		if k.ID == resp.ID {
			return k
		}
	}
	t.Fatalf("key %s not in the fake after create", resp.ID)
	return fakecoder.KeyRow{}
}
