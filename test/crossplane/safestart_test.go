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

package crossplane_test

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-coder/apis"
	"github.com/crossplane-contrib/provider-coder/internal/activation"
	"github.com/crossplane-contrib/provider-coder/test/framework/crossplane"
	"github.com/crossplane-contrib/provider-coder/test/framework/packagerbac"
	"github.com/crossplane-contrib/provider-coder/test/framework/providerprocess"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// The ManagedResourceDefinitions the SafeStart test activates, one by one.
const (
	mrdProviders = "aiproviders.ai.coder.m.crossplane.io"
	mrdRecords   = "cleanuprecords.coder.crossplane.io"
	mrdKeys      = "aigatewaykeys.ai.coder.m.crossplane.io"
)

// TestSafeStartRunsOnlyTheKindsAPolicyActivates installs the package, which
// declares SafeStart, on a Crossplane with no default activation policy,
// under a policy that activates the namespaced AIProvider only. Without the
// CleanupRecord kind an AI provider is not created and says why; with it
// (the policy now activates the namespaced AIProvider and CleanupRecord)
// providers work on the fake Coder while every other kind stays inactive,
// with no CRD served; then the policy activates the keys, and a key works,
// without a restart of the provider.
func TestSafeStartRunsOnlyTheKindsAPolicyActivates(t *testing.T) {
	b := startBedWith(t, crossplane.StartWithoutActivations)
	rel := release(t)
	activate(t, b.kube, mrdProviders)
	b.install(t, rel)
	servedCRDs(t, b.kube, mrdProviders)

	coder, proc := providerOnAFakeCoder(t, b, rel)

	const ns = "team-safestart"
	apply(t, b.kube, fmt.Sprintf(`
apiVersion: v1
kind: Namespace
metadata: {name: %[1]s}
---
apiVersion: v1
kind: Secret
metadata: {name: coder-token, namespace: %[1]s}
stringData: {token: %[2]q, openai: sk-test}
---
apiVersion: coder.m.crossplane.io/v1alpha1
kind: ProviderConfig
metadata: {name: default, namespace: %[1]s}
spec:
  url: %[3]s
  credentials: {source: Secret, secretRef: {name: coder-token, key: token}}
---
apiVersion: ai.coder.m.crossplane.io/v1alpha1
kind: AIProvider
metadata: {name: openai, namespace: %[1]s}
spec:
  forProvider:
    type: openai
    baseURL: https://api.openai.com/v1/
    apiKeySecretRefs: [{name: coder-token, key: openai}]
  providerConfigRef: {kind: ProviderConfig, name: default}
`, ns, coder.Token(), coder.URL()))
	provider := managed("AIProvider", ns, "openai")

	t.Run("without the CleanupRecord kind an AI provider is not created, and says why", func(t *testing.T) {
		waitCondition(t, b.kube, proc, provider, func(c condition) bool {
			return c.Type == "Synced" && c.Status == "False" && strings.Contains(c.Message, activation.MsgRecordsInactive)
		})
		if n := coder.Requests(fakecoder.EndpointProvidersCreate); n != 0 || len(coder.Providers(true)) != 0 {
			t.Errorf("Coder saw %d provider creates and holds %d providers, want none while no cleanup record can be written", n, len(coder.Providers(true)))
		}
	})

	t.Run("with the cleanup records active, providers work while every other kind stays inactive", func(t *testing.T) {
		activate(t, b.kube, mrdProviders, mrdRecords)
		servedCRDs(t, b.kube, mrdProviders, mrdRecords)
		waitCondition(t, b.kube, proc, provider, ready)
		if ps := coder.Providers(false); len(ps) != 1 || ps[0].Name != "openai" {
			t.Errorf("Coder holds %d providers, want the one named openai", len(ps))
		}
		records := &unstructured.UnstructuredList{}
		records.SetAPIVersion("coder.crossplane.io/v1alpha1")
		records.SetKind("CleanupRecordList")
		if err := b.kube.List(t.Context(), records); err != nil || len(records.Items) != 1 {
			t.Errorf("%d cleanup records (%v), want the provider's one", len(records.Items), err)
		}
		// The hold counts the kinds that exist, and the ProviderConfig is
		// Ready although six of its dependent kinds have no CRD.
		pc := managed("ProviderConfig", ns, "default")
		waitCondition(t, b.kube, proc, pc, ready)
		waitUsers(t, b.kube, proc, pc, 1)
	})

	t.Run("activating the keys starts their controller, and a key works", func(t *testing.T) {
		activate(t, b.kube, mrdProviders, mrdRecords, mrdKeys)
		servedCRDs(t, b.kube, mrdProviders, mrdRecords, mrdKeys)
		apply(t, b.kube, key(ns, "gateway"))
		id := waitReady(t, b.kube, proc, ns, "gateway")
		if !slices.ContainsFunc(coder.Keys(), func(k fakecoder.KeyRow) bool { return k.ID.String() == id }) {
			t.Errorf("the key's external name %s is no key in Coder", id)
		}
		// The ProviderConfig watches the kind from its activation: the
		// new dependent is counted.
		waitUsers(t, b.kube, proc, managed("ProviderConfig", ns, "default"), 2)
	})

	if !proc.Running() {
		t.Errorf("the provider exited:\n%s", tail(proc.Logs(), 40))
	}
	for _, l := range strings.Split(proc.Logs(), "\n") {
		if strings.Contains(l, "Cannot start what serves a kind") {
			t.Errorf("the provider could not start a kind whose CRD is served: %s", l)
		}
	}
	if denied := packagerbac.LoggedDenials(proc.Logs()); len(denied) > 0 {
		t.Errorf("RBAC refused the provider %d times, e.g. %s", len(denied), denied[0])
	}
}

// TestAnUpgradeFromAPackageWithoutSafeStartKeepsEveryKindActive installs,
// on a Crossplane with no activation policy, the package as a release from
// before SafeStart was (no capabilities): Crossplane makes every managed
// resource definition Active. The upgrade to the release that declares
// SafeStart keeps them Active, with no policy to say so, and the new
// provider starts every kind, the MCP servers of both scopes and the
// cleanup records included, and manages what the old one created.
func TestAnUpgradeFromAPackageWithoutSafeStartKeepsEveryKindActive(t *testing.T) {
	b := startBedWith(t, crossplane.StartWithoutActivations)
	rel := release(t)
	file, err := crossplane.WithoutSafeStart(t.Context(), rel, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ref, err := reg.Push(file, crossplane.Org+"/provider-coder", "v0.0.9")
	if err != nil {
		t.Fatal(err)
	}
	before := crossplane.Release{Ref: ref, Files: map[string]string{runtime.GOARCH: file}}
	old := b.install(t, before)
	all := map[string]string{}
	for name := range packageCRDs(t) {
		if !strings.Contains(name, "providerconfigs") {
			all[name] = "Active"
		}
	}
	waitMRDStates(t, b.kube, all)

	proc := upgrade(t, b, old, before, nextRelease(t))

	t.Run("every definition stays Active, and the provider starts every kind", func(t *testing.T) {
		waitMRDStates(t, b.kube, all)
		gated := []string{activation.CleanupRecord.String()}
		for _, k := range apis.ManagedKinds() {
			gated = append(gated, k.GVK.String())
		}
		var inactive []string
		err := wait.PollUntilContextTimeout(t.Context(), 250*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
			inactive = slices.DeleteFunc(slices.Clone(gated), func(gvk string) bool { return activeLogged(proc.Logs(), gvk) })
			return len(inactive) == 0, nil
		})
		if err != nil {
			t.Errorf("the upgraded provider did not log %q for %v (%v):\n%s", msgKindActive, inactive, err, tail(proc.Logs(), 40))
		}
	})
}

// msgKindActive is what the provider logs when it has started a kind.
const msgKindActive = "Kind is active"

// activeLogged says whether logs say the kind gvk started.
func activeLogged(logs, gvk string) bool {
	for _, l := range strings.Split(logs, "\n") {
		if strings.Contains(l, msgKindActive) && strings.Contains(l, `"`+gvk+`"`) {
			return true
		}
	}
	return false
}

// waitMRDStates waits, bounded, until the ManagedResourceDefinitions and
// their spec.state are want.
func waitMRDStates(t *testing.T, kube client.Client, want map[string]string) {
	t.Helper()
	var got map[string]string
	err := wait.PollUntilContextTimeout(t.Context(), 250*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		var err error
		got, err = mrdStates(ctx, kube)
		return cmp.Equal(want, got), err
	})
	if err != nil {
		t.Fatalf("kubectl get managedresourcedefinitions (-want +got):\n%s\n%v", cmp.Diff(want, got), err)
	}
}

// mrdStates are the ManagedResourceDefinitions, each with its spec.state.
func mrdStates(ctx context.Context, kube client.Client) (map[string]string, error) {
	l := &unstructured.UnstructuredList{}
	l.SetAPIVersion("apiextensions.crossplane.io/v1alpha1")
	l.SetKind("ManagedResourceDefinitionList")
	if err := kube.List(ctx, l); err != nil {
		return nil, err
	}
	got := map[string]string{}
	for _, m := range l.Items {
		state, _, _ := unstructured.NestedString(m.Object, "spec", "state")
		got[m.GetName()] = state
	}
	return got, nil
}

// activate applies the ManagedResourceActivationPolicy "safestart-test"
// activating the ManagedResourceDefinitions mrds.
func activate(t *testing.T, kube client.Client, mrds ...string) {
	t.Helper()
	p := &unstructured.Unstructured{}
	p.SetAPIVersion("apiextensions.crossplane.io/v1alpha1")
	p.SetKind("ManagedResourceActivationPolicy")
	p.SetName("safestart-test")
	list := make([]any, 0, len(mrds))
	for _, m := range mrds {
		list = append(list, m)
	}
	if err := unstructured.SetNestedSlice(p.Object, list, "spec", "activate"); err != nil {
		t.Fatal(err)
	}
	if err := kube.Patch(t.Context(), p, client.Apply, client.FieldOwner("safestart-test"), client.ForceOwnership); err != nil { //nolint:staticcheck // unstructured server-side apply
		t.Fatal(err)
	}
}

// servedCRDs waits, bounded, until the CRDs of our groups that are
// established are exactly the ProviderConfigs' and those of mrds.
func servedCRDs(t *testing.T, kube client.Client, mrds ...string) {
	t.Helper()
	want := map[string]bool{}
	for name := range packageCRDs(t) {
		if strings.Contains(name, "providerconfigs") || slices.Contains(mrds, name) {
			want[name] = true
		}
	}
	var got map[string]bool
	err := wait.PollUntilContextTimeout(t.Context(), 250*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		l := &apiextensionsv1.CustomResourceDefinitionList{}
		if err := kube.List(ctx, l); err != nil {
			return false, err
		}
		got = map[string]bool{}
		for _, crd := range l.Items {
			if strings.Contains(crd.Spec.Group, "coder.") && established(&crd) {
				got[crd.Name] = true
			}
		}
		return cmp.Equal(want, got), nil
	})
	if err != nil {
		t.Fatalf("established CRDs of our groups (-want +got):\n%s\n%v", cmp.Diff(want, got), err)
	}
}

// managed is an empty object of ours, to read into.
func managed(kind, ns, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	group := "ai.coder.m.crossplane.io"
	if kind == "ProviderConfig" {
		group = "coder.m.crossplane.io"
	}
	u.SetAPIVersion(group + "/v1alpha1")
	u.SetKind(kind)
	u.SetNamespace(ns)
	u.SetName(name)
	return u
}

type condition struct{ Type, Status, Reason, Message string }

func ready(c condition) bool { return c.Type == "Ready" && c.Status == "True" }

// waitCondition waits, bounded, until one of u's conditions satisfies ok.
func waitCondition(t *testing.T, kube client.Client, proc *providerprocess.Process, u *unstructured.Unstructured, ok func(condition) bool) {
	t.Helper()
	var conds []condition
	err := wait.PollUntilContextTimeout(t.Context(), 250*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		if err := kube.Get(ctx, client.ObjectKeyFromObject(u), u); err != nil {
			return false, err
		}
		conds = nil
		raw, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
		for _, r := range raw {
			m, _ := r.(map[string]any)
			c := condition{}
			c.Type, _ = m["type"].(string)
			c.Status, _ = m["status"].(string)
			c.Reason, _ = m["reason"].(string)
			c.Message, _ = m["message"].(string)
			conds = append(conds, c)
		}
		return slices.ContainsFunc(conds, ok), nil
	})
	if err != nil {
		t.Fatalf("%s %s/%s: conditions %+v (%v)\nprovider logs:\n%s", u.GetKind(), u.GetNamespace(), u.GetName(), conds, err, tail(proc.Logs(), 40))
	}
}

// waitUsers waits, bounded, until the ProviderConfig pc counts n users.
func waitUsers(t *testing.T, kube client.Client, proc *providerprocess.Process, pc *unstructured.Unstructured, n int64) {
	t.Helper()
	var got int64
	err := wait.PollUntilContextTimeout(t.Context(), 250*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		if err := kube.Get(ctx, client.ObjectKeyFromObject(pc), pc); err != nil {
			return false, err
		}
		got, _, _ = unstructured.NestedInt64(pc.Object, "status", "users")
		return got == n, nil
	})
	if err != nil {
		t.Fatalf("ProviderConfig %s/%s counts %d users, want %d (%v)\nprovider logs:\n%s", pc.GetNamespace(), pc.GetName(), got, n, err, tail(proc.Logs(), 40))
	}
}
