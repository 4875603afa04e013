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

package deletion

import (
	"context"
	"time"

	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/crossplane-contrib/provider-coder/apis"
	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
)

// SweepWhenResourcesVanish makes the sweeper sweep soon after a managed
// resource is deleted while a record still names it Active. Our finalizer
// settles every record before it goes, so such a resource lost its
// finalizer some other way (stripped by hand) and left its objects in
// Coder; without this they would wait for the next interval.
func (s *Sweeper) SweepWhenResourcesVanish(ctx context.Context, c cache.Cache) error {
	for _, k := range apis.ManagedKinds() {
		if err := s.SweepWhenResourcesOfKindVanish(ctx, c, k); err != nil {
			return err
		}
	}
	return nil
}

// SweepWhenResourcesOfKindVanish is SweepWhenResourcesVanish for the one
// kind k, whose CRD must be served (a kind Crossplane has not activated
// yet has none).
func (s *Sweeper) SweepWhenResourcesOfKindVanish(ctx context.Context, c cache.Cache, k apis.ManagedKind) error {
	inf, err := c.GetInformer(ctx, k.New())
	if err != nil {
		return errors.Wrapf(err, "cannot watch %s", k.Kind)
	}
	if _, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{DeleteFunc: func(obj any) { s.vanished(ctx, obj) }}); err != nil {
		return errors.Wrapf(err, "cannot watch %s", k.Kind)
	}
	return nil
}

// vanished triggers a sweep once the records of a deleted managed resource
// that are not Abandoned yet (Active, or never completed) are older than
// the grace, when the sweep treats them as left.
func (s *Sweeper) vanished(ctx context.Context, obj any) {
	if d, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	o, ok := obj.(client.Object)
	if !ok {
		return
	}
	// Uncached: the cache may not show yet that the finalizer deleted them.
	l := &clusterv1alpha1.CleanupRecordList{}
	if err := s.Reader.List(ctx, l, client.MatchingLabels{ManagedResourceUIDLabel: string(o.GetUID())}); err != nil {
		s.Log.Debug("Cannot list the cleanup records of a deleted managed resource", "error", err)
		return
	}
	for _, rec := range l.Items {
		if rec.Status.Phase != clusterv1alpha1.CleanupPhaseAbandoned {
			time.AfterFunc(max(0, s.Grace-s.now().Sub(rec.CreationTimestamp.Time)), s.Trigger)
			return
		}
	}
}
