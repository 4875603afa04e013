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
	"strings"
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"

	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	clusteraiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/ai/v1alpha1"
	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	namespacedv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/v1alpha1"
)

// badDurations are strings the API server stored before the CRDs validated
// durations, and that metav1.Duration (time.ParseDuration) cannot decode, or
// decodes to a negative bound.
var badDurations = []string{"1d", "10", "", "-1m", "5 m", "1e3s", "1H", "1hour", "P1D", "1h-30m", ".s"}

// goodDurations are spellings time.ParseDuration accepts; admission must
// let every one through.
var goodDurations = []string{"0", "0s", "-0s", "+2h", "1h30m", "1.5h", ".5h", "2.h", "90m0.5s", "7200000ms", "3600s", "600000000us", "600000000µs", "600000000μs", "600000000000ns"}

// durationKind is a kind with duration fields, as an object a tenant or the
// platform team would apply.
type durationKind struct {
	obj    client.Object
	fields [][]string
}

func durationKinds(ns string) map[string]durationKind {
	deletion := [][]string{
		{"spec", "deletion", "dependentTimeout"},
		{"spec", "deletion", "liveDependentTimeout"},
		{"spec", "deletion", "unreachableTimeout"},
		{"spec", "deletion", "grace", "base"},
		{"spec", "deletion", "grace", "perDependent"},
		{"spec", "deletion", "grace", "max"},
	}
	rotation := [][]string{
		{"spec", "forProvider", "rotation", "every"},
		{"spec", "forProvider", "rotation", "settleWindow"},
		{"spec", "forProvider", "rotation", "maxSettleWindow"},
	}
	secret := common.SecretKeySelector{LocalSecretKeySelector: common.LocalSecretKeySelector{Name: "t", Key: testenv.TokenKey}, Namespace: ns}
	clusterSpec := common.ProviderConfigSpec{
		URL:         "https://coder.example.com",
		Credentials: common.Credentials{Source: common.CredentialsSourceSecret, SecretRef: &secret},
	}
	nsKey := newKey(ns, "")
	nsKey.GenerateName = "key-"
	return map[string]durationKind{
		"ProviderConfig.coder.m": {obj: testenv.ProviderConfigOf(ns, "", "https://coder.example.com", "t"), fields: deletion},
		"ClusterProviderConfig.coder.m": {obj: &namespacedv1alpha1.ClusterProviderConfig{
			ObjectMeta: metav1.ObjectMeta{GenerateName: "pc-"}, Spec: clusterSpec,
		}, fields: deletion},
		"ProviderConfig.coder": {obj: &clusterv1alpha1.ProviderConfig{
			ObjectMeta: metav1.ObjectMeta{GenerateName: "pc-"}, Spec: clusterSpec,
		}, fields: deletion},
		"AIGatewayKey.ai.coder.m": {obj: nsKey, fields: rotation},
		"AIGatewayKey.ai.coder": {obj: &clusteraiv1alpha1.AIGatewayKey{
			ObjectMeta: metav1.ObjectMeta{GenerateName: "key-"},
		}, fields: rotation},
	}
}

// unstructuredOf is o as the API server sees it, so a test can set a field
// to a string its Go type cannot hold.
func unstructuredOf(t *testing.T, o client.Object) *unstructured.Unstructured {
	t.Helper()
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: m}
	gvk, err := apiutil.GVKForObject(o, env.Kube.Scheme())
	if err != nil {
		t.Fatal(err)
	}
	u.SetGroupVersionKind(gvk)
	if u.GetName() == "" && u.GetGenerateName() == "" {
		u.SetGenerateName("obj-")
	}
	return u
}

// TestDurationFieldsRefuseWhatTheProviderCannotDecode applies each bad
// duration to each duration field of every kind: the API server refuses it
// with a message naming the field. Every spelling time.ParseDuration
// accepts passes admission (server-side dry run), and what the API server
// returns decodes into the provider's Go types.
func TestDurationFieldsRefuseWhatTheProviderCannotDecode(t *testing.T) {
	ns := env.Namespace(t)
	ctx := context.Background()
	refused, fields := 0, 0
	for kind, k := range durationKinds(ns) {
		base := unstructuredOf(t, k.obj)
		for _, f := range k.fields {
			field := strings.Join(f, ".")
			fields++
			for _, bad := range badDurations {
				u := base.DeepCopy()
				if err := unstructured.SetNestedField(u.Object, bad, f...); err != nil {
					t.Fatal(err)
				}
				err := env.Kube.Create(ctx, u)
				switch {
				case err == nil:
					t.Errorf("%s: %s %q was stored; it is no duration of at least 0s that the provider decodes", kind, field, bad)
					env.Delete(t, u)
				case !kerrors.IsInvalid(err):
					t.Errorf("%s: %s %q: error is not Invalid: %v", kind, field, bad, err)
				case !strings.Contains(err.Error(), field+" must be a duration"):
					t.Errorf("%s: %s %q: error %q does not name the field", kind, field, bad, err)
				default:
					refused++
				}
			}
			for _, good := range goodDurations {
				d, _ := time.ParseDuration(good)
				if f[len(f)-1] == "every" && d <= 5*time.Minute {
					continue // rotation.every must be longer than the default settle window
				}
				u := base.DeepCopy()
				if err := unstructured.SetNestedField(u.Object, good, f...); err != nil {
					t.Fatal(err)
				}
				if err := env.Kube.Create(ctx, u, client.DryRunAll); err != nil {
					t.Errorf("%s: %s %q, which the provider decodes, was refused: %v", kind, field, good, err)
					continue
				}
				typed := k.obj.DeepCopyObject()
				if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, typed); err != nil {
					t.Errorf("%s: %s %q was admitted but does not decode: %v", kind, field, good, err)
				}
			}
		}
	}
	t.Logf("%d bad durations refused across %d fields of %d kinds", refused, fields, len(durationKinds(ns)))
	if want := fields * len(badDurations); refused != want {
		t.Errorf("%d bad durations refused with a message naming the field, want %d", refused, want)
	}
}

// TestATenantsBadDurationCannotStallAnotherTenant: a tenant's
// dependentTimeout of 1d is refused at admission, so it never reaches the
// provider's cluster-wide ProviderConfig informer, which could not decode
// it; another tenant's ProviderConfig turns Ready and its key is created.
func TestATenantsBadDurationCannotStallAnotherTenant(t *testing.T) {
	a, b := env.Namespace(t), env.Namespace(t)
	bad := unstructuredOf(t, testenv.ProviderConfigOf(a, "default", env.Cluster.Coder(t).URL(), "coder-token"))
	if err := unstructured.SetNestedField(bad.Object, "1d", "spec", "deletion", "dependentTimeout"); err != nil {
		t.Fatal(err)
	}
	err := env.Kube.Create(context.Background(), bad)
	if err == nil {
		// Go on: what follows shows what the stored value does to others.
		t.Errorf("tenant %s's dependentTimeout 1d was stored", a)
		t.Cleanup(func() { env.Delete(t, bad) })
	} else if !kerrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.deletion.dependentTimeout must be a duration") {
		t.Fatalf("tenant %s's dependentTimeout 1d: got %v, want Invalid naming spec.deletion.dependentTimeout", a, err)
	}
	from := len(env.Cluster.ProviderLogs(t))
	env.ReadyProviderConfigOf(t, b, env.Cluster.Coder(t), func(pc *namespacedv1alpha1.ProviderConfig) {
		pc.Spec.Deletion = &common.DeletionSpec{DependentTimeout: &metav1.Duration{Duration: 90 * time.Second}}
	})
	t.Logf("tenant %s's key Ready %s after its ProviderConfig", b, timeToReady(t, b, "after-refusal").Round(time.Millisecond))
	if logs := env.Cluster.ProviderLogs(t)[from:]; strings.Contains(logs, "Failed to watch") {
		t.Errorf("the provider failed to watch while another tenant's value was refused:\n%s", logs)
	}
}
