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

package apis

import (
	"reflect"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	clusteraiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/ai/v1alpha1"
	namespacedaiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
)

// A ManagedKind is one kind of managed resource of the provider. Every
// managed kind can depend on a ProviderConfig.
type ManagedKind struct {
	// Kind as humans read it, e.g. "AIGatewayKey".
	Kind string
	// GVK is the kind's group, version and kind, as its CRD serves it.
	GVK schema.GroupVersionKind
	// New returns an empty object of the kind.
	New func() resource.Managed
	// NewList returns an empty list of the kind.
	NewList func() resource.ManagedList
}

// ManagedKinds are every managed resource kind of the provider, both scopes.
func ManagedKinds() []ManagedKind {
	return []ManagedKind{
		managedKind(namespacedaiv1alpha1.AIGatewayKeyGroupVersionKind,
			func() resource.Managed { return &namespacedaiv1alpha1.AIGatewayKey{} },
			func() resource.ManagedList { return &namespacedaiv1alpha1.AIGatewayKeyList{} }),
		managedKind(namespacedaiv1alpha1.AIProviderGroupVersionKind,
			func() resource.Managed { return &namespacedaiv1alpha1.AIProvider{} },
			func() resource.ManagedList { return &namespacedaiv1alpha1.AIProviderList{} }),
		managedKind(namespacedaiv1alpha1.GroupAIBudgetGroupVersionKind,
			func() resource.Managed { return &namespacedaiv1alpha1.GroupAIBudget{} },
			func() resource.ManagedList { return &namespacedaiv1alpha1.GroupAIBudgetList{} }),
		managedKind(namespacedaiv1alpha1.UserAIBudgetOverrideGroupVersionKind,
			func() resource.Managed { return &namespacedaiv1alpha1.UserAIBudgetOverride{} },
			func() resource.ManagedList { return &namespacedaiv1alpha1.UserAIBudgetOverrideList{} }),
		managedKind(namespacedaiv1alpha1.MCPServerGroupVersionKind,
			func() resource.Managed { return &namespacedaiv1alpha1.MCPServer{} },
			func() resource.ManagedList { return &namespacedaiv1alpha1.MCPServerList{} }),
		managedKind(clusteraiv1alpha1.AIGatewayKeyGroupVersionKind,
			func() resource.Managed { return &clusteraiv1alpha1.AIGatewayKey{} },
			func() resource.ManagedList { return &clusteraiv1alpha1.AIGatewayKeyList{} }),
		managedKind(clusteraiv1alpha1.AIProviderGroupVersionKind,
			func() resource.Managed { return &clusteraiv1alpha1.AIProvider{} },
			func() resource.ManagedList { return &clusteraiv1alpha1.AIProviderList{} }),
		managedKind(clusteraiv1alpha1.GroupAIBudgetGroupVersionKind,
			func() resource.Managed { return &clusteraiv1alpha1.GroupAIBudget{} },
			func() resource.ManagedList { return &clusteraiv1alpha1.GroupAIBudgetList{} }),
		managedKind(clusteraiv1alpha1.UserAIBudgetOverrideGroupVersionKind,
			func() resource.Managed { return &clusteraiv1alpha1.UserAIBudgetOverride{} },
			func() resource.ManagedList { return &clusteraiv1alpha1.UserAIBudgetOverrideList{} }),
		managedKind(clusteraiv1alpha1.MCPServerGroupVersionKind,
			func() resource.Managed { return &clusteraiv1alpha1.MCPServer{} },
			func() resource.ManagedList { return &clusteraiv1alpha1.MCPServerList{} }),
	}
}

// managedKind is the ManagedKind of gvk. Its Kind comes from gvk, so no
// entry can name a kind without its group and version: one with none would
// wait on a GroupVersionKind no CRD serves, and never start.
func managedKind(gvk schema.GroupVersionKind, newObject func() resource.Managed, newList func() resource.ManagedList) ManagedKind {
	return ManagedKind{Kind: gvk.Kind, GVK: gvk, New: newObject, NewList: newList}
}

// kinds is each managed kind by its Go type, with the kinds, of both
// scopes, whose resources name the same kind of Coder object: built once,
// since every poll asks.
var kinds = sync.OnceValue(func() map[reflect.Type]kindOf {
	all := ManagedKinds()
	out := make(map[reflect.Type]kindOf, len(all))
	for _, k := range all {
		of := kindOf{kind: k}
		for _, o := range all {
			if o.Kind == k.Kind {
				of.same = append(of.same, o)
			}
		}
		out[reflect.TypeOf(k.New())] = of
	}
	return out
})

type kindOf struct {
	kind ManagedKind
	same []ManagedKind
}

// ManagedKindOf returns the ManagedKind of a managed resource's Go type.
func ManagedKindOf(mg resource.Managed) (ManagedKind, bool) {
	of, ok := kinds()[reflect.TypeOf(mg)]
	return of.kind, ok
}

// SameCoderKinds are the managed kinds, of both scopes, whose resources
// name the same kind of Coder object as mg's (ids of one kind of object
// are never sent to another's endpoints); every kind when mg's type is
// not one of the provider's. Callers must not change the slice.
func SameCoderKinds(mg resource.Managed) []ManagedKind {
	if of, ok := kinds()[reflect.TypeOf(mg)]; ok {
		return of.same
	}
	return ManagedKinds()
}
