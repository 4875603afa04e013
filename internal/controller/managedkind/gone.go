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
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlevent "sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// watchGone tells gone of every object of obj's kind that leaves the
// cache, whether its finalizer was removed by the provider or stripped by
// hand, and enqueues nothing: the kind's reconcile filters deletions out
// (desiredStateChanged), and would only find the object missing.
func watchGone(b *builder.Builder, obj client.Object, gone func(types.NamespacedName)) *builder.Builder {
	return b.Watches(obj, handler.Funcs{
		DeleteFunc: func(_ context.Context, e ctrlevent.DeleteEvent, _ workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			gone(types.NamespacedName{Namespace: e.Object.GetNamespace(), Name: e.Object.GetName()})
		},
	})
}
