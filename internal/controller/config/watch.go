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

package config

import (
	"context"
	"time"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
)

// listKind lists the ProviderConfigs of the reconciler's kind that match the
// options, as requests.
func (r *Reconciler) listKind(ctx context.Context, opts ...client.ListOption) ([]reconcile.Request, error) {
	l, err := providerconfig.NewList(r.kind)
	if err != nil {
		return nil, err
	}
	if err := r.kube.List(ctx, l, opts...); err != nil {
		return nil, err
	}
	var out []reconcile.Request
	for _, pc := range providerconfig.Items(l) {
		out = append(out, reconcile.Request{NamespacedName: providerconfig.RefOfConfig(pc).NamespacedName()})
	}
	return out, nil
}

// usersRefresh is how long a change of dependents waits before its
// ProviderConfig is reconciled for it, so that a burst of creates or deletes
// costs one status write (status.users) a second, not one each. A
// ProviderConfig being deleted is reconciled at once: its hold releases
// when its last dependent is gone.
const usersRefresh = time.Second

// dependentHandler enqueues the ProviderConfig of a managed resource whose
// events dependentChanged passes: at once when that ProviderConfig is being
// deleted, after usersRefresh otherwise.
type dependentHandler struct{ r *Reconciler }

type queue = workqueue.TypedRateLimitingInterface[reconcile.Request]

func (h dependentHandler) enqueue(ctx context.Context, o client.Object, q queue) {
	for _, req := range h.r.configOfDependent(ctx, o) {
		pc, err := providerconfig.Get(ctx, h.r.kube, providerconfig.Ref{GroupKind: h.r.kind, Namespace: req.Namespace, Name: req.Name})
		if err == nil && pc.GetDeletionTimestamp() == nil {
			q.AddAfter(req, usersRefresh)
			continue
		}
		q.Add(req)
	}
}

func (h dependentHandler) Create(ctx context.Context, e event.CreateEvent, q queue) {
	h.enqueue(ctx, e.Object, q)
}

// Update enqueues the ProviderConfigs of both the old and the new object:
// a changed providerConfigRef moves a dependent from one to the other.
func (h dependentHandler) Update(ctx context.Context, e event.UpdateEvent, q queue) {
	h.enqueue(ctx, e.ObjectOld, q)
	h.enqueue(ctx, e.ObjectNew, q)
}

func (h dependentHandler) Delete(ctx context.Context, e event.DeleteEvent, q queue) {
	h.enqueue(ctx, e.Object, q)
}

func (dependentHandler) Generic(context.Context, event.GenericEvent, queue) {}

// dependentChanged passes the events of a managed resource that change the
// dependents of a ProviderConfig: created, deleted, its deletion started, or
// its providerConfigRef changed.
func dependentChanged() predicate.Predicate {
	return predicate.Funcs{
		CreateFunc: func(event.CreateEvent) bool { return true },
		DeleteFunc: func(event.DeleteEvent) bool { return true },
		UpdateFunc: func(e event.UpdateEvent) bool {
			o, ok1 := e.ObjectOld.(resource.Managed)
			n, ok2 := e.ObjectNew.(resource.Managed)
			if !ok1 || !ok2 {
				return false
			}
			if (o.GetDeletionTimestamp() == nil) != (n.GetDeletionTimestamp() == nil) {
				return true
			}
			ro, _ := providerconfig.RefOf(o)
			rn, _ := providerconfig.RefOf(n)
			return ro != rn
		},
		GenericFunc: func(event.GenericEvent) bool { return false },
	}
}
