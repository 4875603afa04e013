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

package testenv

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/coder/v2/codersdk"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/crossplane-contrib/provider-coder/apis"
	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	namespacedv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/v1alpha1"
)

// TokenKey is the Secret key that holds the Coder session token in tests.
const TokenKey = "token"

// WaitLong bounds a wait for the provider to act on a change: a
// reconcile, a poll, a sweep.
const WaitLong = 60 * time.Second

var nsSeq atomic.Int64

// Namespace creates a fresh namespace for one test and deletes it when the
// test ends.
func (e *Env) Namespace(t *testing.T) string {
	t.Helper()
	name := fmt.Sprintf("t%d-%s", nsSeq.Add(1), strings.ToLower(Sanitize(t.Name())))
	if len(name) > 50 {
		name = strings.TrimRight(name[:50], "-")
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := e.Kube.Create(context.Background(), ns); err != nil {
		t.Fatalf("cannot create namespace: %v", err)
	}
	t.Cleanup(func() { e.cleanNamespace(t, name) })
	return name
}

// cleanNamespace deletes a test's managed resources, waits for them to go
// (so the next scenario does not share the provider with a backlog), then
// deletes the namespace.
func (e *Env) cleanNamespace(t *testing.T, ns string) {
	ctx := context.Background()
	// Only the namespaced kinds: for cluster-scoped ones the namespace
	// option is ignored, and every test's objects would go.
	var kinds []apis.ManagedKind
	for _, k := range apis.ManagedKinds() {
		if namespaced, err := e.Kube.IsObjectNamespaced(k.New()); err == nil && namespaced {
			kinds = append(kinds, k)
		}
	}
	for _, k := range kinds {
		if err := e.Kube.DeleteAllOf(ctx, k.New(), client.InNamespace(ns)); err != nil && !kerrors.IsNotFound(err) {
			t.Errorf("cannot delete the %ss of namespace %s: %v", k.Kind, ns, err)
		}
	}
	Eventually(t, 2*time.Minute, "the managed resources of namespace "+ns+" to be gone", func() (bool, string) {
		left := 0
		for _, k := range kinds {
			l := k.NewList()
			if err := e.Kube.List(ctx, l, client.InNamespace(ns)); err != nil {
				return false, err.Error()
			}
			left += len(l.GetItems())
		}
		return left == 0, fmt.Sprintf("%d left", left)
	})
	if err := e.Kube.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil && !kerrors.IsNotFound(err) {
		t.Errorf("cannot delete namespace %s: %v", ns, err)
	}
}

// Sanitize makes s (a test's name) fit a Kubernetes name: lower case,
// letters, digits and dashes.
func Sanitize(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	return b.String()
}

// TokenSecret creates a Secret holding token.
func (e *Env) TokenSecret(t *testing.T, ns, name, token string) *corev1.Secret {
	t.Helper()
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Data:       map[string][]byte{TokenKey: []byte(token)},
	}
	e.Create(t, s)
	return s
}

// ProviderConfig creates a Secret with the fake Coder's token and a
// namespaced ProviderConfig named "default" that uses it, and waits until it
// is Ready: managed resources connect only through a ProviderConfig that has
// reported Coder's deployment id.
func (e *Env) ProviderConfig(t *testing.T, ns string) *namespacedv1alpha1.ProviderConfig {
	t.Helper()
	return e.ReadyProviderConfigOf(t, ns, e.Cluster.Coder(t), nil)
}

// PCRef is a providerConfigRef to the namespaced ProviderConfig "default".
func PCRef() *xpv2.ProviderConfigReference {
	return &xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: "default"}
}

// Create creates o or fails the test.
func (e *Env) Create(t *testing.T, o client.Object) {
	t.Helper()
	if err := e.Kube.Create(context.Background(), o); err != nil {
		t.Fatalf("cannot create %T %s: %v", o, o.GetName(), err)
	}
}

// CreateRecord creates a cleanup record with its status, as the provider
// writes one: the object, then its status subresource.
func (e *Env) CreateRecord(t *testing.T, rec *clusterv1alpha1.CleanupRecord) {
	t.Helper()
	status := rec.Status
	e.Create(t, rec)
	rec.Status = status
	if err := e.Kube.Status().Update(context.Background(), rec); err != nil {
		t.Fatalf("cannot write the status of cleanup record %s: %v", rec.Name, err)
	}
}

// Delete deletes o or fails the test; an object already gone is fine.
func (e *Env) Delete(t *testing.T, o client.Object, opts ...client.DeleteOption) {
	t.Helper()
	if err := e.Kube.Delete(context.Background(), o, opts...); err != nil && !kerrors.IsNotFound(err) {
		t.Fatalf("cannot delete %T %s: %v", o, o.GetName(), err)
	}
}

// Eventually polls cond every 100ms until it returns true, failing the
// test after timeout with the last reason cond gave. It polls without the
// test's context, which ends before t.Cleanup functions that wait run.
func Eventually(t *testing.T, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	EventuallyEvery(t, 100*time.Millisecond, timeout, what, cond)
}

// EventuallyEvery is Eventually for a condition that costs more to ask
// (many objects, a metrics scrape) or that compares looks taken interval
// apart.
func EventuallyEvery(t *testing.T, interval, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	last := ""
	err := wait.PollUntilContextTimeout(context.Background(), interval, timeout, true, func(context.Context) (bool, error) {
		ok, why := cond()
		last = why
		return ok, nil
	})
	if err != nil {
		t.Fatalf("timed out after %s waiting for %s: %s", timeout, what, last)
	}
}

// Never checks happened every 250ms for d, and fails the test as soon as
// it returns true, with the reason it gave: a check that something does not
// happen for a while. It checks at least once, even when d is not positive.
func Never(t *testing.T, d time.Duration, what string, happened func() (bool, string)) {
	t.Helper()
	var why string
	broke := false
	_ = wait.PollUntilContextTimeout(context.Background(), 250*time.Millisecond, d, true, func(context.Context) (bool, error) {
		broke, why = happened()
		return broke, nil
	})
	if broke {
		t.Fatalf("%s within %s: %s", what, d, why)
	}
}

// Get reads o fresh; it reports whether o exists.
func (e *Env) Get(t *testing.T, o client.Object) bool {
	t.Helper()
	err := e.Kube.Get(context.Background(), types.NamespacedName{Namespace: o.GetNamespace(), Name: o.GetName()}, o)
	if kerrors.IsNotFound(err) {
		return false
	}
	if err != nil {
		t.Fatalf("cannot get %T %s: %v", o, o.GetName(), err)
	}
	return true
}

// WaitCondition waits until o has a condition of type ct with status s,
// and returns the condition.
func (e *Env) WaitCondition(t *testing.T, o resource.Conditioned, ct xpv2.ConditionType, s corev1.ConditionStatus, timeout time.Duration) xpv2.Condition {
	t.Helper()
	obj := o.(client.Object)
	var c xpv2.Condition
	Eventually(t, timeout, fmt.Sprintf("%T %s to be %s=%s", o, obj.GetName(), ct, s), func() (bool, string) {
		if !e.Get(t, obj) {
			return false, "object does not exist"
		}
		c = o.GetCondition(ct)
		return c.Status == s, fmt.Sprintf("%s=%s reason=%s message=%q", ct, c.Status, c.Reason, c.Message)
	})
	return c
}

// WaitGone waits until o no longer exists.
func (e *Env) WaitGone(t *testing.T, o client.Object, timeout time.Duration) {
	t.Helper()
	Eventually(t, timeout, fmt.Sprintf("%T %s to be gone", o, o.GetName()), func() (bool, string) {
		if e.Get(t, o) {
			return false, fmt.Sprintf("still there, finalizers %v", o.GetFinalizers())
		}
		return true, ""
	})
}

// Events returns every Event in the cluster.
func (e *Env) Events(t *testing.T) []corev1.Event {
	t.Helper()
	l := &corev1.EventList{}
	if err := e.Kube.List(context.Background(), l); err != nil {
		t.Fatalf("cannot list events: %v", err)
	}
	return l.Items
}

// ProviderConfigFromSecret creates a namespaced ProviderConfig "default" that
// reads its token from the named Secret.
func (e *Env) ProviderConfigFromSecret(t *testing.T, ns, secret string) *namespacedv1alpha1.ProviderConfig {
	t.Helper()
	return e.ProviderConfigFromSecretNamed(t, ns, "default", secret)
}

// ProviderConfigFromSecretNamed creates a namespaced ProviderConfig that
// reads its token from the named Secret.
func (e *Env) ProviderConfigFromSecretNamed(t *testing.T, ns, name, secret string) *namespacedv1alpha1.ProviderConfig {
	t.Helper()
	pc := ProviderConfigOf(ns, name, e.Cluster.Coder(t).URL(), secret)
	e.Create(t, pc)
	return pc
}

// ReadyProviderConfigOf creates a token Secret and the ProviderConfig
// "default" for the Coder c in ns, changed by mutate (may be nil), and waits
// for it to be Ready.
func (e *Env) ReadyProviderConfigOf(t *testing.T, ns string, c Coder, mutate func(*namespacedv1alpha1.ProviderConfig)) *namespacedv1alpha1.ProviderConfig {
	t.Helper()
	e.TokenSecret(t, ns, "coder-token", c.Token())
	pc := ProviderConfigOf(ns, "default", c.URL(), "coder-token")
	if mutate != nil {
		mutate(pc)
	}
	e.Create(t, pc)
	e.WaitCondition(t, pc, xpv2.TypeReady, corev1.ConditionTrue, WaitLong)
	return pc
}

// ProviderConfigOf is a namespaced ProviderConfig of the Coder at url that
// reads its token from the Secret named secret.
func ProviderConfigOf(ns, name, url, secret string) *namespacedv1alpha1.ProviderConfig {
	return &namespacedv1alpha1.ProviderConfig{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: common.LocalProviderConfigSpec{
			URL: url,
			Credentials: common.LocalCredentials{
				Source:    common.CredentialsSourceSecret,
				SecretRef: &common.LocalSecretKeySelector{Name: secret, Key: TokenKey},
			},
		},
	}
}

func inNamespace(ns string) client.InNamespace { return client.InNamespace(ns) }

// CoderClient is a codersdk client of the fake Coder, acting as a human
// with the deployment's token would.
func (e *Env) CoderClient(t *testing.T) *codersdk.Client {
	t.Helper()
	return e.Cluster.Coder(t).SDK(t)
}

// updateRetry allows the provider, which writes the objects the tests
// update, ten writes in between.
var updateRetry = wait.Backoff{Steps: 10, Duration: 10 * time.Millisecond, Factor: 1, Jitter: 0.1}

// Update applies mutate to a fresh copy of o and updates it, retrying when
// the provider wrote the object in between. It returns the last error.
func (e *Env) Update(t *testing.T, o client.Object, mutate func()) error {
	t.Helper()
	return retry.RetryOnConflict(updateRetry, func() error {
		if !e.Get(t, o) {
			t.Fatalf("%T %s does not exist", o, o.GetName())
		}
		mutate()
		return e.Kube.Update(context.Background(), o)
	})
}
