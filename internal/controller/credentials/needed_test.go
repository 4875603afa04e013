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

package credentials

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	namespacedv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
)

var (
	token = types.NamespacedName{Namespace: "team-a", Name: "coder-token"}
	ca    = types.NamespacedName{Namespace: "team-a", Name: "coder-ca"}
	other = types.NamespacedName{Namespace: "team-b", Name: "coder-token"}

	refA = providerconfig.Ref{GroupKind: providerconfig.NamespacedKind, Namespace: "team-a", Name: "a"}
	refB = providerconfig.Ref{GroupKind: providerconfig.NamespacedKind, Namespace: "team-a", Name: "b"}
	refC = providerconfig.Ref{GroupKind: providerconfig.ClusterKind, Name: "c"}
	refL = providerconfig.Ref{GroupKind: providerconfig.LegacyKind, Name: "l"}
)

func TestASecretIsNeededWhileAProviderConfigThatReadsItHasNotLetGo(t *testing.T) {
	type want struct {
		by     providerconfig.Ref
		needed bool
	}
	cases := map[string]struct {
		reason  string
		secret  types.NamespacedName
		configs []Config
		want    want
	}{
		"NoConfigs": {
			reason: "A Secret no ProviderConfig reads is released.",
			secret: token,
			want:   want{},
		},
		"LiveReadsToken": {
			reason: "A live ProviderConfig needs its token Secret.",
			secret: token,
			configs: []Config{
				{Ref: refA, Secrets: []types.NamespacedName{token}, Holding: true},
			},
			want: want{by: refA, needed: true},
		},
		"LiveReadsCA": {
			reason: "A live ProviderConfig needs its CA Secret as much as its token Secret.",
			secret: ca,
			configs: []Config{
				{Ref: refA, Secrets: []types.NamespacedName{token, ca}, Holding: true},
			},
			want: want{by: refA, needed: true},
		},
		"LiveWithoutHoldFinalizer": {
			reason: "A live ProviderConfig needs its Secret even before it has added its hold finalizer.",
			secret: token,
			configs: []Config{
				{Ref: refA, Secrets: []types.NamespacedName{token}},
			},
			want: want{by: refA, needed: true},
		},
		"DeletingAndHolding": {
			reason: "A ProviderConfig being deleted whose hold has not let go still needs its Secret: its dependents delete with it.",
			secret: token,
			configs: []Config{
				{Ref: refA, Secrets: []types.NamespacedName{token}, Deleting: true, Holding: true},
			},
			want: want{by: refA, needed: true},
		},
		"DeletingAndReleased": {
			reason: "A ProviderConfig whose hold has let go needs nothing.",
			secret: token,
			configs: []Config{
				{Ref: refA, Secrets: []types.NamespacedName{token}, Deleting: true},
			},
			want: want{},
		},
		"RepointedAway": {
			reason: "A ProviderConfig that now reads another Secret no longer needs the old one.",
			secret: token,
			configs: []Config{
				{Ref: refA, Secrets: []types.NamespacedName{{Namespace: "team-a", Name: "coder-token-2"}}, Holding: true},
			},
			want: want{},
		},
		"SameNameOtherNamespace": {
			reason: "A Secret of the same name in another namespace is another Secret.",
			secret: token,
			configs: []Config{
				{Ref: refC, Secrets: []types.NamespacedName{other}, Holding: true},
			},
			want: want{},
		},
		"AllSharersReleased": {
			reason: "Every ProviderConfig sharing the Secret has let go: released, however many there were.",
			secret: token,
			configs: []Config{
				{Ref: refA, Secrets: []types.NamespacedName{token}, Deleting: true},
				{Ref: refB, Secrets: []types.NamespacedName{token}, Deleting: true},
				{Ref: refC, Secrets: []types.NamespacedName{token}, Deleting: true},
			},
			want: want{},
		},
		"OneSharerLeft": {
			reason: "One unreleased sharer, of any kind, keeps the Secret.",
			secret: token,
			configs: []Config{
				{Ref: refA, Secrets: []types.NamespacedName{token}, Deleting: true},
				{Ref: refC, Secrets: []types.NamespacedName{other}, Holding: true},
				{Ref: refL, Secrets: []types.NamespacedName{token}, Deleting: true, Holding: true},
			},
			want: want{by: refL, needed: true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			d := Decide(Secret{Name: tc.secret}, tc.configs, time.Now())
			if diff := cmp.Diff(tc.want, want{by: d.By, needed: d.Needed}, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nDecide(...): -want, +got:\n%s", tc.reason, diff)
			}
			if d.RequeueAfter != 0 || len(d.LetGo) != 0 {
				t.Errorf("%s\nDecide(...) for a Secret not being deleted = %+v, want no requeue and nobody let go", tc.reason, d)
			}
		})
	}
}

func TestEveryProviderConfigKindNamesTheSecretsItReadsAndWhetherItHolds(t *testing.T) {
	now := metav1.NewTime(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	local := &common.LocalSecretKeySelector{Name: "coder-token", Key: "token"}
	cases := map[string]struct {
		reason string
		pc     providerconfig.Object
		want   Config
	}{
		"NamespacedReadsItsNamespace": {
			reason: "A namespaced ProviderConfig reads its Secrets in its own namespace.",
			pc: &namespacedv1alpha1.ProviderConfig{
				ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "a", Finalizers: []string{providerconfig.HoldFinalizer}},
				Spec: common.LocalProviderConfigSpec{
					Credentials: common.LocalCredentials{SecretRef: local},
					TLS:         &common.LocalTLSConfig{CASecretRef: &common.LocalSecretKeySelector{Name: "coder-ca", Key: "ca.crt"}},
				},
			},
			want: Config{Ref: refA, Secrets: []types.NamespacedName{token, ca}, Holding: true, Bounds: providerconfig.DefaultBounds()},
		},
		"ClusterReadsNamedNamespace": {
			reason: "A ClusterProviderConfig being deleted, with its hold let go, reads a Secret of a named namespace.",
			pc: &namespacedv1alpha1.ClusterProviderConfig{
				ObjectMeta: metav1.ObjectMeta{Name: "c", DeletionTimestamp: &now, Finalizers: []string{"someone.else/finalizer"}},
				Spec: common.ProviderConfigSpec{
					Credentials: common.Credentials{SecretRef: &common.SecretKeySelector{LocalSecretKeySelector: *local, Namespace: "team-b"}},
				},
			},
			want: Config{Ref: refC, Secrets: []types.NamespacedName{other}, Deleting: true, Bounds: providerconfig.DefaultBounds()},
		},
		"LegacyWithoutSecretRef": {
			reason: "A legacy ProviderConfig without a secretRef reads no Secret.",
			pc: &clusterv1alpha1.ProviderConfig{
				ObjectMeta: metav1.ObjectMeta{Name: "l"},
			},
			want: Config{Ref: refL, Bounds: providerconfig.DefaultBounds()},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, ConfigOf(tc.pc)); diff != "" {
				t.Errorf("%s\nConfigOf(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestASecretBeingDeletedIsKeptForTheBoundsOfTheProviderConfigsThatStandAndReadIt(t *testing.T) {
	deletedAt := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	b := providerconfig.DefaultBounds()
	liveDep := []providerconfig.Dependent{{Kind: "AIGatewayKey", Namespace: "team-b", Name: "k"}}
	deletingDep := []providerconfig.Dependent{{Kind: "AIGatewayKey", Namespace: "team-b", Name: "k", Deleting: true}}
	standing := func(deps []providerconfig.Dependent) Config {
		return Config{Ref: refC, Secrets: []types.NamespacedName{token}, Holding: true, Bounds: b, Dependents: deps}
	}
	grace := b.Grace(deletingDep)
	cases := map[string]struct {
		reason  string
		configs []Config
		after   time.Duration
		want    Decision
	}{
		"NoDependents": {
			reason:  "A standing ProviderConfig without dependents lets its Secret go at once: nothing needs it to delete anything.",
			configs: []Config{standing(nil)},
			want:    Decision{LetGo: []providerconfig.Ref{refC}, Why: providerconfig.WhyNoDependents},
		},
		"LiveDependentWithinLiveDependentTimeout": {
			reason:  "Live dependents keep it for liveDependentTimeout from the Secret's deletion, re-checked at the bound.",
			configs: []Config{standing(liveDep)},
			after:   b.LiveDependentTimeout - 5*time.Second,
			want:    Decision{Needed: true, By: refC, RequeueAfter: 5 * time.Second},
		},
		"LiveDependentPastLiveDependentTimeout": {
			reason:  "Past liveDependentTimeout, live dependents keep it no longer.",
			configs: []Config{standing(liveDep)},
			after:   b.LiveDependentTimeout,
			want:    Decision{LetGo: []providerconfig.Ref{refC}, Why: providerconfig.WhyLiveDependentTimeout},
		},
		"DeletingDependentWithinDependentTimeout": {
			reason:  "A deleting dependent keeps it for dependentTimeout from the Secret's deletion, re-checked every 10s.",
			configs: []Config{standing(deletingDep)},
			after:   time.Minute,
			want:    Decision{Needed: true, By: refC, RequeueAfter: providerconfig.Recheck},
		},
		"DeletingDependentInGrace": {
			reason:  "Then for the grace period.",
			configs: []Config{standing(deletingDep)},
			after:   b.DependentTimeout + grace - time.Second,
			want:    Decision{Needed: true, By: refC, RequeueAfter: time.Second},
		},
		"DeletingDependentPastGrace": {
			reason:  "Then it goes, whatever the dependent still waits for.",
			configs: []Config{standing(deletingDep)},
			after:   b.DependentTimeout + grace,
			want:    Decision{LetGo: []providerconfig.Ref{refC}, Why: providerconfig.WhyDependentTimeout},
		},
		"ShorterBoundsOfTheProviderConfig": {
			reason: "The bounds are the ProviderConfig's own spec.deletion.",
			configs: []Config{func() Config {
				c := standing(liveDep)
				c.Bounds.LiveDependentTimeout = 3 * time.Second
				return c
			}()},
			after: 3 * time.Second,
			want:  Decision{LetGo: []providerconfig.Ref{refC}, Why: providerconfig.WhyLiveDependentTimeout},
		},
		"EveryStandingSharerPassed": {
			reason: "Two standing ProviderConfigs past their bounds are both let go.",
			configs: []Config{standing(nil), func() Config {
				c := standing(nil)
				c.Ref = refL
				return c
			}()},
			want: Decision{LetGo: []providerconfig.Ref{refC, refL}, Why: providerconfig.WhyNoDependents},
		},
		"OneStandingSharerWithin": {
			reason: "One standing sharer within its bounds keeps it for everyone.",
			configs: []Config{standing(nil), func() Config {
				c := standing(liveDep)
				c.Ref = refL
				return c
			}()},
			after: time.Second,
			want:  Decision{Needed: true, By: refL, RequeueAfter: providerconfig.Recheck, LetGo: []providerconfig.Ref{refC}, Why: providerconfig.WhyNoDependents},
		},
		"DeletingConfigHolds": {
			reason: "A ProviderConfig being deleted whose hold has not let go keeps it by its own hold's bounds, not the Secret's: no re-check of its own.",
			configs: []Config{
				{Ref: refA, Secrets: []types.NamespacedName{token}, Deleting: true, Holding: true, Bounds: b},
				standing(nil),
			},
			after: time.Hour,
			want:  Decision{Needed: true, By: refA, LetGo: []providerconfig.Ref{refC}, Why: providerconfig.WhyNoDependents},
		},
		"StandingElsewhere": {
			reason:  "A standing ProviderConfig that reads another Secret is not let go of this one.",
			configs: []Config{{Ref: refC, Secrets: []types.NamespacedName{other}, Holding: true, Bounds: b}},
			want:    Decision{},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := Decide(Secret{Name: token, DeletedAt: deletedAt}, tc.configs, deletedAt.Add(tc.after))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nDecide(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
