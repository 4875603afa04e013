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
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/crossplane-contrib/provider-coder/internal/deletion"
	"github.com/crossplane-contrib/provider-coder/internal/policy"
	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
)

// stalledReconciler releases the deleting resources the managed reconciler
// leaves alone (cleanup.Stalled: paused, or management policies it does not
// support) once their delete is due to be a bounded pass: their
// ProviderConfig is gone, released or in its grace, or their namespace has
// been deleting for its dependentTimeout. crossplane-runtime's reconciler
// returns for them before it observes, deletes or removes a finalizer, and
// does not requeue them, so without this one tenant's paused resource would
// keep its namespace Terminating, and its ProviderConfig's hold would end
// with the resource still there. It requeues them at their namespace bound;
// a change of their ProviderConfig re-queues them through watchConfigs.
// Every other request goes to inner unchanged.
type stalledReconciler struct {
	inner reconcile.Reconciler
	// cache reads the resource, as the managed reconciler does.
	cache     client.Reader
	newObj    func() resource.Managed
	policies  bool
	connector *providerconfig.Connector
	finalizer *deletion.Finalizer
	log       logging.Logger
}

func (r *stalledReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	mg := r.newObj()
	if err := r.cache.Get(ctx, req.NamespacedName, mg); err != nil || !meta.WasDeleted(mg) || !meta.FinalizerExists(mg, providerconfig.ManagedFinalizer) {
		return r.inner.Reconcile(ctx, req)
	}
	why := policy.Stalled(mg, r.policies)
	if why == "" {
		return r.inner.Reconcile(ctx, req)
	}
	mode, bound, err := r.connector.DeleteMode(ctx, mg)
	if err != nil {
		return reconcile.Result{}, err
	}
	if mode == providerconfig.ModeBoundedPass {
		r.log.Info("Releasing a deleting resource the managed reconciler leaves alone: its bounds have passed", "request", req.String(), "reason", why)
		return reconcile.Result{}, r.finalizer.ReleaseStalled(ctx, mg, why)
	}
	res, err := r.inner.Reconcile(ctx, req)
	if wait := time.Until(bound); !bound.IsZero() && (res.RequeueAfter <= 0 || wait < res.RequeueAfter) {
		res.RequeueAfter = max(wait, stalledRecheck)
	}
	return res, err
}

// stalledRecheck is the least wait before a stalled resource is looked at
// again: its bound may be a moment away.
const stalledRecheck = 100 * time.Millisecond
