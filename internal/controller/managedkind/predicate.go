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
	"maps"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
)

// desiredStateChanged passes the events that ask a managed resource's
// reconciler for something: creations, deletions requested (an update of
// the deletion timestamp), and updates of its spec (its generation, which
// a deletion request also bumps), labels or annotations. It
// drops the updates the managed reconciler makes about its own work, which
// it follows with a requeue of its own: status, finalizers, and the
// annotations of a create (pending, failed, succeeded, and the external
// name written with the succeeded mark).
//
// crossplane-runtime's resource.DesiredStateChanged passes the succeeded
// mark. Its reconcile started at once, often on a cache that did not yet
// hold the status written after the create, and so failed with a conflict
// and was retried: 3 to 4 reconciles per create instead of 2 under load
// (docs/performance.md).
func desiredStateChanged() predicate.Predicate {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			if e.ObjectOld == nil || e.ObjectNew == nil {
				return false
			}
			return DesiredStateChanged(e.ObjectOld, e.ObjectNew)
		},
		// The object is gone from the cache: its reconcile would only find
		// it missing. Its deletion was the reconcile that removed our
		// finalizer; an object that left without it (finalizers stripped)
		// is the sweep's (sweep.SweepWhenResourcesVanish watches for it).
		DeleteFunc: func(event.DeleteEvent) bool { return false },
	}
}

// DesiredStateChanged reports whether the update from before to after asks
// for something (see desiredStateChanged).
func DesiredStateChanged(before, after client.Object) bool {
	if before.GetGeneration() != after.GetGeneration() || !maps.Equal(before.GetLabels(), after.GetLabels()) {
		return true
	}
	return !maps.Equal(requested(before, after), requested(after, before))
}

// requested are o's annotations without those the reconciler writes about a
// create. The external name counts unless it changed together with the
// succeeded mark (between o and other): that is the create writing it.
func requested(o, other client.Object) map[string]string {
	a := maps.Clone(o.GetAnnotations())
	ownCreate := a[meta.AnnotationKeyExternalCreateSucceeded] != other.GetAnnotations()[meta.AnnotationKeyExternalCreateSucceeded]
	delete(a, meta.AnnotationKeyExternalCreatePending)
	delete(a, meta.AnnotationKeyExternalCreateFailed)
	delete(a, meta.AnnotationKeyExternalCreateSucceeded)
	if ownCreate {
		delete(a, meta.AnnotationKeyExternalName)
	}
	return a
}
