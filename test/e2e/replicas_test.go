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
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/controller/aigatewaykey"
	"github.com/crossplane-contrib/provider-coder/internal/metrics"
	"github.com/crossplane-contrib/provider-coder/test/framework/packagerbac"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/gatewayreplica"
)

// The scenarios of gateway replicas on a rotating key: replicas that read
// their key once at start and heartbeat on the fake Coder's /serve, as
// `coder ai-gateway start` does, with Coder's 60 s heartbeat period.

// kubelet plays the kubelet for one Deployment: it runs n replicas, each
// started on the key the connection Secret holds at that moment, and
// replaces them all when the Deployment's pod template annotations change,
// as a rollout does. A replica that exits before the kubelet stops it is a
// failure: its gateway dropped out.
type kubelet struct {
	t      *testing.T
	k      *aiv1alpha1.AIGatewayKey
	deploy *appsv1.Deployment
	n      int

	mu       sync.Mutex
	running  []*gatewayreplica.Replica
	keys     []string // the key id each generation started on
	failures []string
}

// runKubelet creates the Deployment name in k's namespace and starts
// playing its kubelet until the test ends.
func runKubelet(t *testing.T, k *aiv1alpha1.AIGatewayKey, name string, n int) *kubelet {
	t.Helper()
	labels := map[string]string{"app": name}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: k.Namespace, Name: name},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "gateway", Image: "ghcr.io/coder/coder:v2.36.0"}}},
			},
		},
	}
	env.Create(t, d)
	kl := &kubelet{t: t, k: k, deploy: d, n: n}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go kl.loop(ctx, done)
	t.Cleanup(func() { cancel(); <-done; kl.stopAll() })
	return kl
}

func (kl *kubelet) loop(ctx context.Context, done chan<- struct{}) {
	defer close(done)
	seen := "unset"
	for {
		d := &appsv1.Deployment{}
		if err := env.Kube.Get(ctx, client.ObjectKeyFromObject(kl.deploy), d); err == nil {
			if v := d.Spec.Template.Annotations[aigatewaykey.RestartedForKeyAnnotation]; v != seen {
				seen = v
				kl.roll(ctx)
			}
		}
		kl.check()
		select {
		case <-ctx.Done():
			return
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// roll stops the running replicas and starts n on the Secret's key.
func (kl *kubelet) roll(ctx context.Context) {
	kl.stopAll()
	s := &corev1.Secret{}
	nn := client.ObjectKey{Namespace: kl.k.Namespace, Name: kl.k.Spec.WriteConnectionSecretToReference.Name}
	if err := env.Kube.Get(ctx, nn, s); err != nil {
		return
	}
	kl.mu.Lock()
	defer kl.mu.Unlock()
	for range kl.n {
		kl.running = append(kl.running, gatewayreplica.Start(ctx, env.Coder.URL(), string(s.Data[aigatewaykey.ConnectionKey])))
	}
	kl.keys = append(kl.keys, string(s.Data[aigatewaykey.ConnectionID]))
}

func (kl *kubelet) stopAll() {
	kl.mu.Lock()
	defer kl.mu.Unlock()
	kl.check0()
	for _, r := range kl.running {
		r.Stop()
	}
	kl.running = nil
}

func (kl *kubelet) check() {
	kl.mu.Lock()
	defer kl.mu.Unlock()
	kl.check0()
}

// check0 notes every running replica that exited by itself; mu is held.
func (kl *kubelet) check0() {
	kept := kl.running[:0]
	for _, r := range kl.running {
		select {
		case <-r.Done():
			kl.failures = append(kl.failures, fmt.Sprintf("a replica exited while in service: %v", r.Wait()))
		default:
			kept = append(kept, r)
		}
	}
	kl.running = kept
}

// state is the key ids the generations started on, how many replicas run
// and are ready, and the failures so far.
func (kl *kubelet) state() (keys []string, ready int, failures []string) {
	kl.mu.Lock()
	defer kl.mu.Unlock()
	for _, r := range kl.running {
		if r.Ready() {
			ready++
		}
	}
	return append([]string(nil), kl.keys...), ready, append([]string(nil), kl.failures...)
}

// grantRestart applies the Role and RoleBinding that
// docs/how-to/rotate-gateway-keys.md tells users to apply for
// rotation.restart, in namespace ns.
func grantRestart(t *testing.T, ns string) {
	t.Helper()
	role := &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "provider-coder-restart"},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{"apps"}, Resources: []string{"deployments", "statefulsets", "daemonsets"}, Verbs: []string{"get", "patch"}}},
	}
	env.Create(t, role)
	env.Create(t, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "provider-coder-restart"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: packagerbac.ServiceAccountNamespace, Name: packagerbac.ServiceAccountName}},
	})
}

func TestKeyRotationRestartsTheReplicasAndRevokesTheOldKeyOnlyOnceTheirHeartbeatsStop(t *testing.T) {
	ns := env.Namespace(t)
	env.ProviderConfig(t, ns)
	k := rotatingKey(ns, "gateway", 0, 10*time.Minute)
	k.Spec.ForProvider.Rotation.Restart = []common.WorkloadReference{{Kind: common.WorkloadDeployment, Name: "ai-gateway"}}
	env.Create(t, k)
	env.WaitCondition(t, k, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	oldRow := waitPublished(t, k, "", testenv.WaitLong)
	kl := runKubelet(t, k, "ai-gateway", 2)
	testenv.Eventually(t, testenv.WaitLong, "two replicas ready on the first key", func() (bool, string) {
		_, ready, _ := kl.state()
		return ready == 2 && env.Coder.OpenSessions()[oldRow.ID] == 2, fmt.Sprintf("%d ready, sessions %v", ready, env.Coder.OpenSessions())
	})

	// The provider's RBAC does not cover workloads: the restart says what
	// it needs, and the old key stays while its replicas heartbeat.
	denied := env.ExpectDenials("deployments")
	requestRotation(t, k, "1")
	newRow := waitPublished(t, k, oldRow.ID.String(), testenv.WaitLong)
	c := env.WaitCondition(t, k, xpv2.TypeSynced, corev1.ConditionFalse, testenv.WaitLong)
	if !strings.Contains(c.Message, "rotation.restart") || !strings.Contains(c.Message, "get and patch on apps deployments in "+ns) {
		t.Errorf("a forbidden restart says %q, want what RBAC it needs", c.Message)
	}
	grantRestart(t, ns)
	testenv.Eventually(t, 2*testenv.WaitLong, "the provider to restart the Deployment onto the new key", func() (bool, string) {
		keys, ready, _ := kl.state()
		return len(keys) == 2 && keys[1] == newRow.ID.String() && ready == 2, fmt.Sprintf("generations on %v, %d ready", keys, ready)
	})
	denied()
	restarted := time.Now()
	// The old replicas' last heartbeat is at most a period old: the old
	// key goes only once two periods pass without one, far inside the
	// 10-minute window (an early end).
	testenv.Eventually(t, 2*aigatewaykey.HeartbeatPeriod+testenv.WaitLong, "the old key to be deleted once its heartbeats stopped", func() (bool, string) {
		_, ok := env.Coder.ValidKey(oldRow.Key)
		return !ok, "old key still valid"
	})
	t.Logf("old key deleted %s after the restart (window 10m)", time.Since(restarted).Round(time.Second))
	waitEvent(t, k, string(aigatewaykey.ReasonWorkloadsRestarted))
	testenv.Never(t, 5*time.Second, "a replica on the new key to fail", func() (bool, string) {
		_, ready, failures := kl.state()
		return len(failures) > 0 || ready != 2, fmt.Sprintf("%d ready, failures %v", ready, failures)
	})
	if _, _, failures := kl.state(); len(failures) > 0 {
		t.Errorf("replicas dropped out during the rotation: %v", failures)
	}
}

func TestKeyRotationKeepsARetiringKeyInUseUntilMaxSettleWindowAndSaysSo(t *testing.T) {
	const settle, maxSettle = 10 * time.Second, 40 * time.Second
	ns := env.Namespace(t)
	env.ProviderConfig(t, ns)
	k := rotatingKey(ns, "stuck", 0, settle)
	k.Spec.ForProvider.Rotation.MaxSettleWindow = &metav1.Duration{Duration: maxSettle}
	env.Create(t, k)
	env.WaitCondition(t, k, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	oldRow := waitPublished(t, k, "", testenv.WaitLong)
	replica := gatewayreplica.Start(context.Background(), env.Coder.URL(), oldRow.Key)
	t.Cleanup(replica.Stop)
	testenv.Eventually(t, testenv.WaitLong, "the replica on the first key", func() (bool, string) { return replica.Ready(), "not ready" })

	// provider_coder_retiring_keys_in_use_total, which the alerts of
	// examples/monitoring read: one kept, then one revoked.
	inUse := func(outcome string) float64 {
		return testenv.Counter(env.Cluster.ProviderMetrics(t), "provider_coder_retiring_keys_in_use_total", "outcome", outcome)
	}
	kept, revoked := inUse(metrics.InUseKept), inUse(metrics.InUseRevoked)

	requestRotation(t, k, "1")
	newRow := waitPublished(t, k, oldRow.ID.String(), testenv.WaitLong)
	c := env.WaitCondition(t, k, aigatewaykey.TypeRetiringKeyInUse, corev1.ConditionTrue, settle+testenv.WaitLong)
	if !strings.Contains(c.Message, oldRow.KeyPrefix) || !strings.Contains(c.Message, "rollout restart") {
		t.Errorf("condition %s message %q names neither the key prefix %s nor what to do", c.Type, c.Message, oldRow.KeyPrefix)
	}
	if _, ok := env.Coder.ValidKey(oldRow.Key); !ok {
		t.Fatalf("the retiring key was deleted at the end of the settle window while a replica used it")
	}
	waitEvent(t, k, string(aigatewaykey.ReasonRetiringKeyInUse))
	if got := inUse(metrics.InUseKept); got <= kept {
		t.Errorf("retiring_keys_in_use_total{outcome=kept} = %v while the key is kept in use, want more than %v", got, kept)
	}
	testenv.Eventually(t, maxSettle+testenv.WaitLong, "the old key to be deleted at maxSettleWindow", func() (bool, string) {
		_, ok := env.Coder.ValidKey(oldRow.Key)
		return !ok, "old key still valid"
	})
	if d := time.Since(newRow.CreatedAt); d < maxSettle-time.Second {
		t.Errorf("old key deleted %s after the rotation began, before maxSettleWindow %s", d, maxSettle)
	}
	testenv.Eventually(t, testenv.WaitLong, "the revocation to be announced", func() (bool, string) {
		return hasEvent(t, k, string(aigatewaykey.ReasonRetiringKeyRevokedInUse)), "no event"
	})
	if got := inUse(metrics.InUseRevoked); got <= revoked {
		t.Errorf("retiring_keys_in_use_total{outcome=revoked} = %v after the revocation, want more than %v", got, revoked)
	}
	// Coder closes the session within a period; the redial gets 401.
	select {
	case <-replica.Done():
		t.Logf("the replica on the revoked key exited: %v", replica.Wait())
	case <-time.After(aigatewaykey.HeartbeatPeriod + testenv.WaitLong):
		t.Errorf("the replica on the revoked key is still running")
	}
	env.WaitCondition(t, k, aigatewaykey.TypeRetiringKeyInUse, corev1.ConditionFalse, testenv.WaitLong)
}

func TestADeletedConnectionSecretStartsARotationNotARevoke(t *testing.T) {
	const settle = 15 * time.Second
	k, oldRow := readyRotatingKey(t, "lost", 0, settle)
	env.Delete(t, connSecret(t, k))
	newRow := waitPublished(t, k, oldRow.ID.String(), testenv.WaitLong)
	if _, ok := env.Coder.ValidKey(oldRow.Key); !ok {
		t.Fatalf("the key whose Secret was deleted was revoked at once")
	}
	waitEvent(t, k, string(aigatewaykey.ReasonConnectionSecretLost))
	if hasEvent(t, k, string(aigatewaykey.ReasonUncertainCreateReplaced)) {
		t.Errorf("a lost Secret was reported as %s", aigatewaykey.ReasonUncertainCreateReplaced)
	}
	testenv.Eventually(t, settle+testenv.WaitLong, "the old key to retire after the settle window", func() (bool, string) {
		_, ok := env.Coder.ValidKey(oldRow.Key)
		return !ok, "old key still valid"
	})
	if d := time.Since(newRow.CreatedAt); d < settle-time.Second {
		t.Errorf("old key deleted %s after the new key, before the settle window %s", d, settle)
	}
	s := connSecret(t, k)
	if got := string(s.Data[aigatewaykey.ConnectionKey]); !strings.HasPrefix(got, string(s.Data[aigatewaykey.ConnectionKeyPrefix])) || string(s.Data[aigatewaykey.ConnectionID]) != newRow.ID.String() {
		t.Errorf("the Secret holds id %s with a key that is not its own", s.Data[aigatewaykey.ConnectionID])
	}
}
