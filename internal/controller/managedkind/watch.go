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

package managedkind

import (
	"context"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane-contrib/provider-coder/apis"
	"github.com/crossplane-contrib/provider-coder/internal/index"
	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
)

// watchConfigs makes a managed controller reconcile the dependents of a
// ProviderConfig, of the kind it manages, when that ProviderConfig's hold
// moves on or it is gone: a dependent waiting out a backoff then makes its
// bounded pass at once instead of minutes later.
func watchConfigs(b *builder.Builder, kube client.Reader, kind apis.ManagedKind) *builder.Builder {
	enqueue := handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, o client.Object) []reconcile.Request {
		pc, ok := o.(providerconfig.Object)
		if !ok {
			return nil
		}
		l := kind.NewList()
		if err := kube.List(ctx, l, client.MatchingFields{index.ManagedProviderConfig: providerconfig.RefOfConfig(pc).IndexValue()}); err != nil {
			return nil
		}
		out := make([]reconcile.Request, 0, len(l.GetItems()))
		for _, mg := range l.GetItems() {
			if mg.GetDeletionTimestamp() != nil {
				out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: mg.GetNamespace(), Name: mg.GetName()}})
			}
		}
		return out
	})
	holdMoved := predicate.Funcs{
		CreateFunc:  func(event.CreateEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
		DeleteFunc:  func(event.DeleteEvent) bool { return true },
		UpdateFunc: func(e event.UpdateEvent) bool {
			o, ok1 := e.ObjectOld.(providerconfig.Object)
			n, ok2 := e.ObjectNew.(providerconfig.Object)
			return ok1 && ok2 && providerconfig.StateOf(o) != providerconfig.StateOf(n)
		},
	}
	for _, gk := range providerconfig.Kinds() {
		pc, _ := providerconfig.New(gk)
		b = b.Watches(pc, enqueue, builder.WithPredicates(holdMoved))
	}
	return b
}
