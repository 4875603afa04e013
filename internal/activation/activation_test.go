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

package activation

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"

	"github.com/crossplane-contrib/provider-coder/apis"
	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	namespacedaiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
)

func kinds(names ...string) []string { return names }

func TestExistingKeepsOnlyServedKindsInOrder(t *testing.T) {
	all := apis.ManagedKinds()
	cases := map[string]struct {
		reason string
		served map[schema.GroupVersionKind]bool
		want   []string
	}{
		"NoneServed": {
			reason: "a provider installed under a policy that activates nothing counts no kind",
			want:   nil,
		},
		"NamespacedProvidersOnly": {
			reason: "the policy of the SafeStart test: the namespaced AIProvider alone",
			served: map[schema.GroupVersionKind]bool{namespacedaiv1alpha1.AIProviderGroupVersionKind: true},
			want:   kinds("AIProvider.ai.coder.m.crossplane.io"),
		},
		"CleanupRecordIsNoManagedKind": {
			reason: "the records are gated too, but nothing uses a ProviderConfig through them",
			served: map[schema.GroupVersionKind]bool{CleanupRecord: true, namespacedaiv1alpha1.AIGatewayKeyGroupVersionKind: true},
			want:   kinds("AIGatewayKey.ai.coder.m.crossplane.io"),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, k := range Existing(all, func(gvk schema.GroupVersionKind) bool { return tc.served[gvk] }) {
				got = append(got, k.GVK.GroupKind().String())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nExisting(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
	every := Existing(all, func(schema.GroupVersionKind) bool { return true })
	if len(every) != len(all) {
		t.Errorf("with every kind served, Existing keeps %d of %d kinds", len(every), len(all))
	}
}

func TestCreateRefusedWhileCleanupRecordIsInactive(t *testing.T) {
	cases := map[string]struct {
		reason       string
		pc           string
		recordsExist bool
		want         string
	}{
		"MayCreate": {
			reason:       "records can be written and the ProviderConfig takes creates",
			recordsExist: true,
			want:         "",
		},
		"RecordsInactive": {
			reason: "a create writes its record first: none without the kind",
			want:   MsgRecordsInactive,
		},
		"ProviderConfigFirst": {
			reason:       "the ProviderConfig's refusal says more about what to mend",
			pc:           "the ProviderConfig is being deleted",
			recordsExist: false,
			want:         "the ProviderConfig is being deleted",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := CreateRefused(tc.pc, tc.recordsExist); got != tc.want {
				t.Errorf("%s\nCreateRefused(%q, %t) = %q, want %q", tc.reason, tc.pc, tc.recordsExist, got, tc.want)
			}
		})
	}
}

// waitExists waits, bounded, until k says gvk exists.
func waitExists(t *testing.T, k *Kinds, gvk schema.GroupVersionKind) {
	t.Helper()
	// The gate runs what starts a kind in a goroutine of its own.
	if err := wait.PollUntilContextTimeout(t.Context(), time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		return k.Exists(gvk), nil
	}); err != nil {
		t.Fatalf("%s does not exist 10s after its CRD was served: %v", gvk, err)
	}
}

func TestAKindStartsWhenItsCRDIsServedAndNotBefore(t *testing.T) {
	k := New(logging.NewNopLogger(), nil, nil)
	provider := namespacedaiv1alpha1.AIProviderGroupVersionKind
	started := make(chan schema.GroupVersionKind, 2)
	for _, gvk := range []schema.GroupVersionKind{provider, namespacedaiv1alpha1.AIGatewayKeyGroupVersionKind} {
		if err := k.OnServed(gvk, func() error { started <- gvk; return nil }); err != nil {
			t.Fatal(err)
		}
	}
	if k.Exists(provider) {
		t.Fatal("AIProvider exists before its CRD is served")
	}
	k.Set(provider, true)
	if got := <-started; got != provider {
		t.Errorf("served AIProvider, started %s", got)
	}
	waitExists(t, k, provider)
	if k.Exists(namespacedaiv1alpha1.AIGatewayKeyGroupVersionKind) {
		t.Error("AIGatewayKey exists, but only AIProvider's CRD is served")
	}
	select {
	case got := <-started:
		t.Errorf("%s started, but only AIProvider's CRD is served", got)
	default:
	}
}

func TestAKindThatFailsToStartStaysAbsent(t *testing.T) {
	k := New(logging.NewNopLogger(), nil, nil)
	done := make(chan struct{})
	if err := k.OnServed(CleanupRecord, func() error { defer close(done); return errors.New("boom") }); err != nil {
		t.Fatal(err)
	}
	k.Set(CleanupRecord, true)
	<-done
	if k.Exists(CleanupRecord) {
		t.Error("CleanupRecord exists though what serves it failed to start")
	}
}

func TestAKindWithoutItsGroupVersionKindIsRefused(t *testing.T) {
	for name, k := range map[string]*Kinds{"Gated": New(logging.NewNopLogger(), nil, nil), "All": All(logging.NewNopLogger())} {
		for _, gvk := range []schema.GroupVersionKind{{}, {Kind: namespacedaiv1alpha1.MCPServerKind}, namespacedaiv1alpha1.MCPServerGroupVersionKind.GroupVersion().WithKind("")} {
			ran := false
			if err := k.OnServed(gvk, func() error { ran = true; return nil }); err == nil || ran {
				t.Errorf("%s: OnServed(%q): error %v, started %t; want an error and nothing started (no CRD serves it, so it would never start)", name, gvk, err, ran)
			}
		}
	}
}

func TestAllStartsEveryKindAtOnce(t *testing.T) {
	k := All(logging.NewNopLogger())
	ran := false
	if err := k.OnServed(CleanupRecord, func() error { ran = true; return nil }); err != nil {
		t.Fatal(err)
	}
	if !ran || !k.Exists(CleanupRecord) || !k.Exists(namespacedaiv1alpha1.AIGatewayKeyGroupVersionKind) {
		t.Errorf("All: started %t, CleanupRecord exists %t; want every kind started and existing", ran, k.Exists(CleanupRecord))
	}
	var nilKinds *Kinds
	if !nilKinds.Exists(CleanupRecord) {
		t.Error("nil Kinds: CleanupRecord does not exist; nil gates nothing")
	}
}

// failing fails every read with err.
type failing struct {
	client.Client
	err error
}

func (f failing) List(context.Context, client.ObjectList, ...client.ListOption) error { return f.err }

func (f failing) Get(context.Context, client.ObjectKey, client.Object, ...client.GetOption) error {
	return f.err
}

func TestOnlyAKindTheAPIServerDoesNotServeReadsAsEmpty(t *testing.T) {
	noKind := &meta.NoKindMatchError{GroupKind: CleanupRecord.GroupKind()}
	down := errors.New("connection refused")
	cases := map[string]struct {
		reason    string
		err       error
		list      client.ObjectList
		wantEmpty bool
	}{
		"GatedKindNotServed": {
			reason:    "a kind without a CRD has no objects",
			err:       noKind,
			list:      &clusterv1alpha1.CleanupRecordList{Items: []clusterv1alpha1.CleanupRecord{{}}},
			wantEmpty: true,
		},
		"GatedManagedKindNotServed": {
			reason:    "a managed kind without a CRD has no resources",
			err:       errors.Wrap(&meta.NoKindMatchError{GroupKind: namespacedaiv1alpha1.AIProviderGroupVersionKind.GroupKind()}, "cannot list"),
			list:      &namespacedaiv1alpha1.AIProviderList{},
			wantEmpty: true,
		},
		"GatedKindOtherError": {
			reason: "an API server that does not answer says nothing about the kind: the error stays",
			err:    down,
			list:   &clusterv1alpha1.CleanupRecordList{},
		},
		"NotGated": {
			reason: "only the gated kinds may be missing: another kind's missing type stays an error",
			err:    noKind,
			list:   &corev1.SecretList{},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := Client(failing{err: tc.err}).List(context.Background(), tc.list)
			if tc.wantEmpty {
				if err != nil || meta.LenList(tc.list) != 0 {
					t.Errorf("%s\nList: %v with %d items, want an empty list", tc.reason, err, meta.LenList(tc.list))
				}
				return
			}
			if err == nil {
				t.Errorf("%s\nList: no error, want %v", tc.reason, tc.err)
			}
		})
	}
	if err := Reader(failing{err: noKind}).Get(context.Background(), client.ObjectKey{Name: "r"}, &clusterv1alpha1.CleanupRecord{}); !kerrors.IsNotFound(err) {
		t.Errorf("Get of a kind without a CRD: %v, want not found", err)
	}

	// A served kind is read through, started or not.
	s := runtime.NewScheme()
	if err := apis.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	kube := fake.NewClientBuilder().WithScheme(s).WithObjects(&clusterv1alpha1.CleanupRecord{ObjectMeta: metav1.ObjectMeta{Name: "r"}}).Build()
	got := &clusterv1alpha1.CleanupRecordList{}
	if err := Client(kube).List(context.Background(), got); err != nil || len(got.Items) != 1 {
		t.Errorf("List of a served kind: %d items, %v; want the one record", len(got.Items), err)
	}
}

func crd(group, kind string, established, served bool) *apiextensionsv1.CustomResourceDefinition {
	c := &apiextensionsv1.CustomResourceDefinition{Spec: apiextensionsv1.CustomResourceDefinitionSpec{
		Group: group, Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: kind},
		Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1alpha1", Served: served}},
	}}
	c.Name = strings.ToLower(kind) + "s." + group
	if established {
		c.Status.Conditions = []apiextensionsv1.CustomResourceDefinitionCondition{{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue}}
	}
	return c
}

func TestPendingAreServedKindsNotStarted(t *testing.T) {
	key, provider := namespacedaiv1alpha1.AIGatewayKeyGroupVersionKind, namespacedaiv1alpha1.AIProviderGroupVersionKind
	cases := map[string]struct {
		reason  string
		crds    []*apiextensionsv1.CustomResourceDefinition
		started []schema.GroupVersionKind
		want    []schema.GroupVersionKind
	}{
		"ServedNotStarted": {
			reason:  "the key's CRD is served and its controller not started yet: its resources cannot be counted",
			crds:    []*apiextensionsv1.CustomResourceDefinition{crd(key.Group, key.Kind, true, true), crd(provider.Group, provider.Kind, true, true)},
			started: []schema.GroupVersionKind{provider},
			want:    []schema.GroupVersionKind{key},
		},
		"AllStarted": {
			reason:  "every served kind started",
			crds:    []*apiextensionsv1.CustomResourceDefinition{crd(provider.Group, provider.Kind, true, true)},
			started: []schema.GroupVersionKind{provider},
		},
		"NotEstablished": {
			reason: "a CRD not Established serves nothing yet",
			crds:   []*apiextensionsv1.CustomResourceDefinition{crd(key.Group, key.Kind, false, true)},
		},
		"VersionNotServed": {
			reason: "a version that is not served serves nothing",
			crds:   []*apiextensionsv1.CustomResourceDefinition{crd(key.Group, key.Kind, true, false)},
		},
		"NotOurs": {
			reason: "another provider's CRDs are not ours to wait for",
			crds:   []*apiextensionsv1.CustomResourceDefinition{crd("example.org", "Widget", true, true)},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var served []schema.GroupVersionKind
			for _, c := range tc.crds {
				served = append(served, Served(c)...)
			}
			got := Pending(apis.ManagedKinds(), served, func(gvk schema.GroupVersionKind) bool { return slices.Contains(tc.started, gvk) })
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nPending: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestCountingWaitsForAServedKindToStart(t *testing.T) {
	s := runtime.NewScheme()
	if err := apiextensionsv1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	key := namespacedaiv1alpha1.AIGatewayKeyGroupVersionKind
	kube := fake.NewClientBuilder().WithScheme(s).WithObjects(crd(key.Group, key.Kind, true, true)).Build()
	k := New(logging.NewNopLogger(), nil, kube)
	if got, err := k.Counted(context.Background()); err == nil {
		t.Errorf("Counted = %d kinds while the served AIGatewayKey has not started, want an error", len(got))
	}
	done := make(chan struct{})
	if err := k.OnServed(key, func() error { close(done); return nil }); err != nil {
		t.Fatal(err)
	}
	k.Set(key, true)
	<-done
	waitExists(t, k, key)
	got, err := k.Counted(context.Background())
	if err != nil || len(got) != 1 || got[0].GVK != key {
		t.Errorf("Counted = %v, %v; want the started AIGatewayKey alone", got, err)
	}
}

// lagging maps a kind only from its third question on, as the API server's
// discovery names a kind a moment after its CRD is Established.
type lagging struct {
	meta.RESTMapper
	mu    sync.Mutex
	asked int
}

func (m *lagging) RESTMapping(gk schema.GroupKind, _ ...string) (*meta.RESTMapping, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.asked++
	if m.asked < 3 {
		return nil, &meta.NoKindMatchError{GroupKind: gk}
	}
	return &meta.RESTMapping{}, nil
}

func TestAServedKindStartsOnceDiscoveryMapsIt(t *testing.T) {
	m := &lagging{}
	k := New(logging.NewNopLogger(), m, nil)
	asked := make(chan int, 1)
	if err := k.OnServed(CleanupRecord, func() error {
		m.mu.Lock()
		defer m.mu.Unlock()
		asked <- m.asked
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	k.Set(CleanupRecord, true)
	if got := <-asked; got != 3 {
		t.Errorf("started after %d questions to the mapper, want after the third, the first that maps the kind", got)
	}
	waitExists(t, k, CleanupRecord)
}
