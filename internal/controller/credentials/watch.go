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
	"context"
	"slices"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
)

// protected passes the events of Secrets that carry the credentials
// finalizer: the only Secrets this controller acts on.
func protected() predicate.Predicate {
	return predicate.NewPredicateFuncs(func(o client.Object) bool {
		return controllerutil.ContainsFinalizer(o, providerconfig.CredentialsFinalizer)
	})
}

// enqueueSecrets enqueues the Secrets a ProviderConfig reads. On an update
// it enqueues those of the old and the new object: a repointed secretRef or
// a removed tls.caSecretRef leaves a Secret that only the old object names.
func enqueueSecrets() handler.EventHandler {
	type queue = workqueue.TypedRateLimitingInterface[reconcile.Request]
	add := func(q queue, objs ...client.Object) {
		for _, s := range secretsOfAll(objs...) {
			q.Add(reconcile.Request{NamespacedName: s})
		}
	}
	return handler.Funcs{
		CreateFunc:  func(_ context.Context, e event.CreateEvent, q queue) { add(q, e.Object) },
		UpdateFunc:  func(_ context.Context, e event.UpdateEvent, q queue) { add(q, e.ObjectOld, e.ObjectNew) },
		DeleteFunc:  func(_ context.Context, e event.DeleteEvent, q queue) { add(q, e.Object) },
		GenericFunc: func(_ context.Context, e event.GenericEvent, q queue) { add(q, e.Object) },
	}
}

// secretsOfAll are the Secrets any of the ProviderConfigs reads, each once.
func secretsOfAll(objs ...client.Object) []types.NamespacedName {
	var out []types.NamespacedName
	for _, o := range objs {
		for _, s := range secretsOf(o) {
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// secretsMayBeReleased passes the ProviderConfig updates that can change
// whether its Secrets are needed: the Secrets it reads, its deletion, or its
// hold finalizer. Status updates pass nothing, so a poll costs no list.
func secretsMayBeReleased() predicate.Predicate {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			o, ok1 := e.ObjectOld.(providerconfig.Object)
			n, ok2 := e.ObjectNew.(providerconfig.Object)
			if !ok1 || !ok2 {
				return false
			}
			co, cn := ConfigOf(o), ConfigOf(n)
			return co.Deleting != cn.Deleting || co.Holding != cn.Holding || !slices.Equal(co.Secrets, cn.Secrets)
		},
	}
}
