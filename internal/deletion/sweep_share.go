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
	"cmp"
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
	"github.com/crossplane-contrib/provider-coder/internal/metrics"
	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
)

// DefaultSweepShare lets a Coder answering in 25 s list, delete and list
// again in a sweep.
const DefaultSweepShare = 2 * time.Minute

// sweepWait is how long a sweep waits for its workers: what slow ones have
// not settled counts as left, and a trigger is served at once.
const sweepWait = 5 * time.Second

// A Share is each client's share of the sweeps, one worker at a time for at
// most Sweeper.Share, so one tenant's slow Coder costs only its own records.
// Callers hold the sweep's lock.
type Share struct {
	running map[*coder.Client]bool
}

// Take reports whether a worker for cl may start, and marks it running.
func (b *Share) Take(cl *coder.Client) bool {
	if b.running[cl] {
		return false
	}
	if b.running == nil {
		b.running = map[*coder.Client]bool{}
	}
	b.running[cl] = true
	return true
}

// Done ends cl's worker: the next sweep may give it work again.
func (b *Share) Done(cl *coder.Client) { delete(b.running, cl) }

type errShareSpent time.Duration

func (e errShareSpent) Error() string {
	return fmt.Sprintf("this sweep's time for the ProviderConfig's Coder (%s) ran out; the next sweep goes on", time.Duration(e))
}

// clientWork is one client's records in one sweep, by kind, and its budget.
type clientWork struct {
	recs map[string][]*clusterv1alpha1.CleanupRecord
	n    int
	per  time.Duration
	// now is the Coder the client reaches (Speaks).
	now Origin
}

func (w *clientWork) add(rec *clusterv1alpha1.CleanupRecord) {
	if w.recs == nil {
		w.recs = map[string][]*clusterv1alpha1.CleanupRecord{}
	}
	w.recs[rec.Spec.Kind] = append(w.recs[rec.Spec.Kind], rec)
	w.n++
}

func (w *clientWork) len() int { return w.n }

// workFor returns cl's work in this sweep, taking cl's share on its first
// record; nil when cl is nil or its earlier worker still runs.
func (s *Sweeper) workFor(work map[*coder.Client]*clientWork, cl *coder.Client, now Origin) *clientWork {
	if cl == nil {
		return nil
	}
	if w, ok := work[cl]; ok {
		return w
	}
	s.mu.Lock()
	ok := s.shares.Take(cl)
	s.mu.Unlock()
	if !ok {
		return nil
	}
	w := &clientWork{per: cmp.Or(s.Share, DefaultSweepShare), now: now}
	work[cl] = w
	return w
}

// sweepAll runs each client's work on a worker of its own and waits at most
// the sweep's wait; what is unsettled then counts as left.
func (s *Sweeper) sweepAll(ctx context.Context, work map[*coder.Client]*clientWork, recs []clusterv1alpha1.CleanupRecord, live []resource.Managed) Result {
	type done struct{ swept, left int }
	results := make(chan done, len(work))
	out := Result{}
	for cl, w := range work {
		if w.len() == 0 {
			s.release(cl)
			continue
		}
		out.Left += w.len()
		go func() {
			defer s.release(cl)
			swept, left := s.sweepClient(ctx, cl, w, liveOwnersOf(recs, live, w.now))
			results <- done{swept, left}
		}()
	}
	wait := time.NewTimer(s.waitFor())
	defer wait.Stop()
	for pending := out.Left; pending > 0; {
		select {
		case r := <-results:
			out.Swept += r.swept
			out.Left -= r.swept
			pending -= r.swept + r.left
		case <-wait.C:
			return out
		case <-ctx.Done():
			return out
		}
	}
	return out
}

func (s *Sweeper) release(cl *coder.Client) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.shares.Done(cl)
}

// sweepClient deletes what one client's records name, calling Coder until
// its share ends, and settles them on ctx, which the share does not end.
func (s *Sweeper) sweepClient(ctx context.Context, cl *coder.Client, w *clientWork, managing liveOwners) (swept, left int) {
	// A cancellation, not a deadline, so the breaker does not open on a
	// cut request; real time, not s.now, which may be a test's.
	cctx, cancel := context.WithCancelCause(ctx)
	t := time.AfterFunc(w.per, func() { cancel(errShareSpent(w.per)) })
	defer t.Stop()
	defer cancel(nil)
	for _, k := range objectKinds {
		recs := w.recs[k.kind]
		if len(recs) == 0 {
			continue
		}
		l := look{cl: cl, now: w.now, owned: managing.Except(ownersOf(recs)...)}
		for i, f := range sweepObjects(cctx, l, k.objectKind, recs) {
			result := metrics.SweepDeleted
			if f.superseded {
				result = metrics.SweepSuperseded
			}
			if s.settle(ctx, recs[i], spent(cctx, f.err), result) {
				swept++
			} else {
				left++
			}
		}
	}
	return swept, left
}

func spent(ctx context.Context, err error) error {
	var cut errShareSpent
	if errors.Is(err, context.Canceled) && errors.As(context.Cause(ctx), &cut) {
		return cut
	}
	return err
}

type sweeperState struct {
	mu     sync.Mutex
	shares Share
	// wait overrides sweepWait in tests.
	wait time.Duration
}

func (s *Sweeper) waitFor() time.Duration {
	if s.wait > 0 {
		return s.wait
	}
	return sweepWait
}

func ownersOf(recs []*clusterv1alpha1.CleanupRecord) []string {
	out := make([]string, 0, len(recs))
	for _, r := range recs {
		out = append(out, r.Spec.ManagedResource.UID)
	}
	return out
}

// A SweepConfig is a Ready ProviderConfig the sweep may delete through.
type SweepConfig struct {
	// Origin says which records it could serve, never which it may: any
	// server can report any deployment id.
	Origin Origin
	// Client is built on first pick, so only used tokens are read.
	Client *coder.Client
	// Unusable: no client could be built; never picked.
	Unusable bool

	conn providerconfig.Connection
}

// SweeperFor picks, by index, the ProviderConfig that sweeps a record made
// at rec, of a resource in namespace ns (empty: cluster-scoped).
//
// A record is swept through its own ProviderConfig while that reaches the
// same URL and deployment, else through a cluster-scoped one (only the
// platform team makes those) of that Coder, which deletes by recorded id and
// UID-derived name only: its credentials may see someone else's objects of
// the same name. A tenant's server claiming the platform's deployment id is
// at another URL and sweeps nothing of the platform's. A legacy record is
// swept by deployment, cluster-scoped first, then its own namespace's.
func SweeperFor(configs []SweepConfig, rec Origin, ns string) (int, bool) {
	if rec.Legacy() {
		return legacySweeperFor(configs, rec.DeploymentID, ns)
	}
	cluster := -1
	for i, c := range configs {
		switch {
		case c.Unusable:
		case rec.MadeBy(c.Origin):
			return i, true
		case c.Origin.ProviderConfig.Namespace == "" && rec.SameCoder(c.Origin) && cluster < 0:
			cluster = i
		}
	}
	return cluster, cluster >= 0
}

func legacySweeperFor(configs []SweepConfig, id, ns string) (int, bool) {
	own := -1
	for i, c := range configs {
		switch {
		case id == "" || c.Origin.DeploymentID != id || c.Unusable:
		case c.Origin.ProviderConfig.Namespace == "":
			return i, true
		case c.Origin.ProviderConfig.Namespace == ns && own < 0:
			own = i
		}
	}
	return own, own >= 0
}

// sweeperFor returns the client that sweeps rec (SweeperFor), built on first
// use, and its Coder (for ByName); nil when none is entitled.
func (s *Sweeper) sweeperFor(ctx context.Context, configs []SweepConfig, rec *clusterv1alpha1.CleanupRecord) (*coder.Client, Origin) {
	for {
		sw, ok := SweeperFor(configs, originOf(rec), rec.Spec.ManagedResource.Namespace)
		if !ok {
			return nil, Origin{}
		}
		c := &configs[sw]
		if c.Client != nil {
			return c.Client, c.Origin
		}
		cfg, err := providerconfig.ClientConfig(ctx, s.Kube, c.conn, s.Timeout)
		if err == nil {
			c.Client, err = s.Clients.Get(cfg)
		}
		if err != nil {
			c.Unusable = true
			continue
		}
		return c.Client, c.Origin
	}
}

// readyConfigs reads uncached: a sweep triggered by a ProviderConfig turning
// Ready must see it Ready.
func (s *Sweeper) readyConfigs(ctx context.Context) ([]SweepConfig, error) {
	var out []SweepConfig
	for _, gk := range providerconfig.Kinds() {
		l, _ := providerconfig.NewList(gk)
		if err := s.Reader.List(ctx, l); err != nil {
			return nil, errors.Wrap(err, "cannot list ProviderConfigs")
		}
		for _, pc := range providerconfig.Items(l) {
			id := providerconfig.StatusOf(pc).DeploymentID
			if id == "" || pc.GetDeletionTimestamp() != nil || pc.GetCondition(xpv2.TypeReady).Status != corev1.ConditionTrue {
				continue
			}
			if conn := providerconfig.ConnectionOf(pc); conn.Sweep {
				out = append(out, SweepConfig{conn: conn, Origin: Origin{DeploymentID: id, ProviderConfig: clusterv1alpha1.RecordedProviderConfig{
					Group: gk.Group, Kind: gk.Kind, Namespace: pc.GetNamespace(), Name: pc.GetName(), URL: coder.CanonicalURL(conn.URL),
				}}})
			}
		}
	}
	return out, nil
}
