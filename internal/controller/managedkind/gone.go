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

	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// goneReconciler tells a kind that a resource is gone from the cache: the
// controller's watch sends a request for every deleted object, including
// one whose finalizer was removed by hand, which no Observe saw deleting.
type goneReconciler struct {
	inner  reconcile.Reconciler
	cache  client.Reader
	newObj func() client.Object
	gone   func(types.NamespacedName)
}

func (r *goneReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	if err := r.cache.Get(ctx, req.NamespacedName, r.newObj()); kerrors.IsNotFound(err) {
		r.gone(req.NamespacedName)
	}
	return r.inner.Reconcile(ctx, req)
}
