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
	"math/rand/v2"
	"time"

	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/crossplane-contrib/provider-coder/apis"
	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
	"github.com/crossplane-contrib/provider-coder/internal/metrics"
)

// Reasons a record turns Abandoned outside a bounded pass.
const (
	ReasonManagedResourceGone = "ManagedResourceGone"
)

// A Sweeper deletes in Coder what Abandoned records name, through a Ready
// ProviderConfig of the same Coder, and abandons Active records whose
// resource vanished (finalizers stripped by hand). It reads past the cache:
// a stale one could make it abandon a record whose resource exists.
type Sweeper struct {
	Kube     client.Client
	Reader   client.Reader
	Clients  *coder.Cache
	Log      logging.Logger
	Timeout  time.Duration
	Interval time.Duration
	// Grace is how old an Active record must be before its missing
	// resource counts as gone, so a fresh create is never raced.
	Grace time.Duration
	// Now measures the grace; time.Now when nil.
	Now func() time.Time
	// Share bounds a ProviderConfig's time on Coder (DefaultSweepShare).
	Share time.Duration

	trigger chan struct{}
	sweeperState
}

func (s *Sweeper) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// NewSweeper returns a Sweeper; set its fields before Start.
func NewSweeper() *Sweeper { return &Sweeper{trigger: make(chan struct{}, 1)} }

// Trigger asks for a sweep as soon as possible.
func (s *Sweeper) Trigger() {
	select {
	case s.trigger <- struct{}{}:
	default:
	}
}

// NeedLeaderElection: only the leader sweeps.
func (s *Sweeper) NeedLeaderElection() bool { return true }

// Start sweeps until ctx ends: at start, on Trigger, with backoff while
// work is left (NextSweep), else every Interval; failures never stop it.
func (s *Sweeper) Start(ctx context.Context) error {
	retries := 0
	for {
		res, err := s.Sweep(ctx)
		undone := err != nil || res.Left > 0
		jitter := rand.Float64()*0.2 - 0.1 //nolint:gosec // Jitter needs no cryptographic randomness.
		var wait time.Duration
		wait, retries = NextSweep(s.Interval, retries, undone, jitter)
		switch {
		case err != nil:
			s.Log.Info("Cleanup sweep failed", "error", err, "retryIn", wait)
		case res.Left > 0:
			s.Log.Debug("Cleanup sweep left Abandoned records", "swept", res.Swept, "left", res.Left, "retryIn", wait)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-s.trigger:
			t.Stop()
			// A trigger is news: the backoff starts over, or records of a
			// gone deployment would stretch it to minutes for everyone.
			retries = 0
		case <-t.C:
		}
	}
}

// An undone sweep retries soon: Coder may be back long before the interval.
const (
	sweepRetryFirst = 2 * time.Second
	sweepRetryMax   = 5 * time.Minute
)

// NextSweep returns the wait after a sweep and the undone sweeps in a row:
// an undone one retries after 2s, doubling up to 5m and never past the
// interval; a complete one waits the interval shifted by jitter (in
// [-0.1, 0.1]) so replicas and restarts do not sweep in step.
func NextSweep(interval time.Duration, retries int, undone bool, jitter float64) (time.Duration, int) {
	if !undone {
		return interval + time.Duration(jitter*float64(interval)), 0
	}
	wait := sweepRetryMax
	if retries < 16 { // 2s<<16 is past the cap; a larger shift could overflow.
		wait = min(sweepRetryFirst<<retries, sweepRetryMax)
	}
	return min(wait, interval), retries + 1
}

// Result is what one sweep did.
type Result struct {
	// Swept records were removed after a verified delete in Coder.
	Swept int
	// Left Abandoned records remain: no Ready ProviderConfig, or Coder failed.
	Left int
}

// Sweep makes one pass over every cleanup record.
func (s *Sweeper) Sweep(ctx context.Context) (Result, error) {
	start := time.Now()
	defer func() { metrics.ObserveSweep(time.Since(start)) }()

	l := &clusterv1alpha1.CleanupRecordList{}
	if err := s.Reader.List(ctx, l); err != nil {
		return Result{}, errors.Wrap(err, errListRecords)
	}
	phases := map[string]int{clusterv1alpha1.CleanupPhaseActive: 0, clusterv1alpha1.CleanupPhaseAbandoned: 0}
	// Each client's records are swept by a worker of its own.
	work := map[*coder.Client]*clientWork{}
	var sweepers []SweepConfig
	var live []resource.Managed
	var err error
	loaded := false
	// Whether a resource exists, by UID, read once per sweep.
	seen := map[string]bool{}
	swept := 0
	for i := range l.Items {
		rec := &l.Items[i]
		if rec.Status.Phase == "" {
			// Without a status it names nothing in Coder.
			s.removeUnwritten(ctx, rec, seen)
			continue
		}
		if rec.Status.Phase == clusterv1alpha1.CleanupPhaseActive {
			if gone, err := s.resourceGone(ctx, rec, seen); err == nil && gone {
				rec.Status.Phase = clusterv1alpha1.CleanupPhaseAbandoned
				rec.Status.Reason = ReasonManagedResourceGone
				rec.Status.AbandonedAt = &metav1.Time{Time: s.now()}
				// A conflict or NotFound: the resource settled it meanwhile.
				if err := s.Kube.Status().Update(ctx, rec); err != nil && !kerrors.IsNotFound(err) && !kerrors.IsConflict(err) {
					s.Log.Info("Cannot abandon cleanup record", "record", rec.Name, "error", err)
				}
			}
		}
		if rec.Status.Phase != clusterv1alpha1.CleanupPhaseAbandoned {
			phases[rec.Status.Phase]++
			continue
		}
		if !loaded {
			loaded = true
			if sweepers, err = s.readyConfigs(ctx); err != nil {
				return Result{Swept: swept}, err
			}
			if live, err = s.managing(ctx); err != nil {
				return Result{Swept: swept}, err
			}
		}
		cl, now := s.sweeperFor(ctx, sweepers, rec)
		w := s.workFor(work, cl, now)
		if w == nil || !s.claim(ctx, rec) {
			phases[rec.Status.Phase]++
			continue
		}
		w.add(rec)
	}
	done := s.sweepAll(ctx, work, l.Items, live)
	swept += done.Swept
	phases[clusterv1alpha1.CleanupPhaseAbandoned] += done.Left
	for p, n := range phases {
		metrics.SetRecords(p, n)
	}
	return Result{Swept: swept, Left: phases[clusterv1alpha1.CleanupPhaseAbandoned]}, nil
}

// resourceGone: the record's resource is gone (or replaced), past the grace.
func (s *Sweeper) resourceGone(ctx context.Context, rec *clusterv1alpha1.CleanupRecord, seen map[string]bool) (bool, error) {
	if s.now().Sub(rec.CreationTimestamp.Time) < s.Grace {
		return false, nil
	}
	ref := rec.Spec.ManagedResource
	if gone, ok := seen[ref.UID]; ok {
		return gone, nil
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(schema.FromAPIVersionAndKind(ref.APIVersion, ref.Kind))
	err := s.Reader.Get(ctx, types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}, u)
	if err != nil && !kerrors.IsNotFound(err) {
		return false, err
	}
	gone := kerrors.IsNotFound(err) || string(u.GetUID()) != ref.UID
	seen[ref.UID] = gone
	return gone, nil
}

// claim counts a sweep attempt by an update, so a second sweeper holding an
// older version gets a conflict and leaves the record alone.
func (s *Sweeper) claim(ctx context.Context, rec *clusterv1alpha1.CleanupRecord) bool {
	if _, ok := objectsOf(rec.Spec.Kind); !ok {
		s.Log.Info("Cannot sweep cleanup record of an unknown kind", "record", rec.Name, "kind", rec.Spec.Kind)
		return false
	}
	rec.Status.Attempts++
	return s.Kube.Status().Update(ctx, rec) == nil
}

// settle deletes a claimed record after a verified delete (err nil), under
// the version it claimed; otherwise it notes the error for the retry.
func (s *Sweeper) settle(ctx context.Context, rec *clusterv1alpha1.CleanupRecord, err error, result string) bool {
	if err != nil {
		metrics.Swept(rec.Spec.Kind, metrics.SweepError)
		s.Log.Info("Cannot sweep cleanup record; retrying", "record", rec.Name, "error", err)
		rec.Status.LastError = err.Error()
		_ = s.Kube.Status().Update(ctx, rec)
		return false
	}
	rv := rec.ResourceVersion
	if err := s.Kube.Delete(ctx, rec, client.Preconditions{ResourceVersion: &rv}); err != nil && !kerrors.IsNotFound(err) {
		return false
	}
	metrics.Swept(rec.Spec.Kind, result)
	s.Log.Debug("Swept cleanup record", "record", rec.Name, "kind", rec.Spec.Kind, "result", result)
	return true
}

// removeUnwritten deletes a record without a status, under the version
// read, once its resource is gone past the grace (so no create is raced).
func (s *Sweeper) removeUnwritten(ctx context.Context, rec *clusterv1alpha1.CleanupRecord, seen map[string]bool) {
	if gone, err := s.resourceGone(ctx, rec, seen); err != nil || !gone {
		return
	}
	rv := rec.ResourceVersion
	if err := s.Kube.Delete(ctx, rec, client.Preconditions{ResourceVersion: &rv}); err != nil && !kerrors.IsNotFound(err) && !kerrors.IsConflict(err) {
		s.Log.Info("Cannot remove a cleanup record the provider never completed", "record", rec.Name, "error", err)
		return
	}
	s.Log.Debug("Removed a cleanup record the provider never completed; it names nothing in Coder", "record", rec.Name)
}

// managing reads every managed resource past the cache: a stale read could
// miss the one that imported an object.
func (s *Sweeper) managing(ctx context.Context) ([]resource.Managed, error) {
	var live []resource.Managed
	for _, k := range apis.ManagedKinds() {
		l := k.NewList()
		if err := s.Reader.List(ctx, l); err != nil {
			return nil, errors.Wrapf(err, "cannot list %s", k.Kind)
		}
		live = append(live, l.GetItems()...)
	}
	return live, nil
}

// SweepWhenResourcesVanish sweeps soon after a resource whose record is
// still Active is deleted: our finalizer settles every record, so it lost its
// finalizer some other way and left its objects in Coder.
func (s *Sweeper) SweepWhenResourcesVanish(ctx context.Context, c cache.Cache) error {
	for _, k := range apis.ManagedKinds() {
		if err := s.SweepWhenResourcesOfKindVanish(ctx, c, k); err != nil {
			return err
		}
	}
	return nil
}

// SweepWhenResourcesOfKindVanish is SweepWhenResourcesVanish for kind k,
// whose CRD must be served.
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

// vanished triggers a sweep once the unabandoned records are past the grace.
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
