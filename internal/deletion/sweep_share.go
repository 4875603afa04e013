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

// DefaultSweepShare is how long one ProviderConfig's Coder may work on a
// sweep's records when Sweeper.Share is zero: enough for a Coder that
// takes 25 s an answer to list, delete and list again, while nobody else
// waits for it (see Share).
const DefaultSweepShare = 2 * time.Minute

// sweepWait is how long a sweep waits for its workers before it returns,
// leaving the slow ones working: what they have not settled yet counts as
// left, so the sweep is retried with backoff, and a trigger (another
// tenant's record turning Abandoned) is served at once.
const sweepWait = 5 * time.Second

// A Share is each Coder client's share of the sweeps: one worker at a
// time, working on Coder for at most Sweeper.Share. A sweep gives a client's records
// to its own worker, so one tenant's slow Coder costs only that tenant's
// records; a client whose worker from an earlier sweep still runs gets no
// more work until it ends. It is not safe for concurrent use: the sweep
// takes, its workers give back through the sweep's lock.
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

// errBudgetSpent is why a worker's calls to Coder stop.
type errShareSpent time.Duration

func (e errShareSpent) Error() string {
	return fmt.Sprintf("this sweep's time for the ProviderConfig's Coder (%s) ran out; the next sweep goes on", time.Duration(e))
}

// clientWork is what one sweep gives one client's worker: the records it
// claimed, by kind, and the budget it works within.
type clientWork struct {
	recs map[string][]*clusterv1alpha1.CleanupRecord
	n    int
	// per is the worker's time on Coder, from its start.
	per time.Duration
	// now is the Coder the client reaches: only records made through it
	// say who holds an object there (Speaks).
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

// workFor returns the work of cl in this sweep, taking cl's budget on its
// first record; nil when cl is nil or its worker from an earlier sweep
// still runs.
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

// sweepAll runs each client's work on a worker of its own and waits for
// them for at most the sweep's wait. Records a worker has not settled by
// then count as left. Each worker decides from recs and live what other
// resources hold in its Coder (liveOwnersOf).
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

// sweepClient deletes in Coder what one client's records name, kind by
// kind (one find before and one after the deletes serve every record of a
// kind: sweepObjects), calling Coder only until the budget ends; the
// records are settled on ctx, which the budget does not end. An object a
// live resource holds is left to it.
func (s *Sweeper) sweepClient(ctx context.Context, cl *coder.Client, w *clientWork, managing liveOwners) (swept, left int) {
	// A cancellation, not a deadline: a cut request says nothing about
	// Coder, so the client's breaker does not open on it.
	// The budget bounds real time, not the grace's clock (s.now), which
	// may be a test's.
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

// spent is err, or, when the budget cut it, why.
func spent(ctx context.Context, err error) error {
	var cut errShareSpent
	if errors.Is(err, context.Canceled) && errors.As(context.Cause(ctx), &cut) {
		return cut
	}
	return err
}

// sweeperState is what a Sweeper keeps between sweeps.
type sweeperState struct {
	mu     sync.Mutex
	shares Share
	// wait overrides sweepWait; tests set it.
	wait time.Duration
}

func (s *Sweeper) waitFor() time.Duration {
	if s.wait > 0 {
		return s.wait
	}
	return sweepWait
}

// ownersOf are the UIDs of the resources of recs.
func ownersOf(recs []*clusterv1alpha1.CleanupRecord) []string {
	out := make([]string, 0, len(recs))
	for _, r := range recs {
		out = append(out, r.Spec.ManagedResource.UID)
	}
	return out
}

// A SweepConfig is a Ready ProviderConfig the sweep may delete through.
type SweepConfig struct {
	// Origin is the ProviderConfig, its canonical URL and the deployment
	// id its Coder reported. Any server can report any id, so it says
	// which records the ProviderConfig could serve, never which it may.
	Origin Origin
	// Client is built the first time the sweep picks the ProviderConfig:
	// a sweep reads the token Secrets of only the ProviderConfigs it uses.
	Client *coder.Client
	// Unusable: no client could be built (its Secret cannot be read); it
	// is never picked.
	Unusable bool

	conn providerconfig.Connection
}

// SweeperFor picks the ProviderConfig that sweeps a record made at rec, of
// a resource in namespace ns (empty: a cluster-scoped resource), by its
// index in configs.
//
// A record that names its ProviderConfig is swept through that one, if it
// still reaches the same URL and deployment, and otherwise through a
// cluster-scoped one (which only the platform team creates) of that URL
// and deployment, which deletes by recorded id and UID-derived name only:
// its credentials are not the ones that made the object, and may see
// objects of the same name that are someone else's. A tenant's server that
// claims the platform's deployment id is at another URL, and sweeps
// nothing of the platform's; nor can the platform's ProviderConfig sweep a
// tenant's record by a name that tenant chose.
//
// A record written before records named their ProviderConfig is swept by
// deployment, through a cluster-scoped ProviderConfig or one in the
// resource's own namespace, cluster-scoped first.
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

// legacySweeperFor is SweeperFor for a record that names no ProviderConfig.
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

// sweeperFor returns the client of the ProviderConfig that sweeps rec
// (see SweeperFor), building it on first use, and the Coder it reaches
// (which decides whether it may delete by name: ByName); nil when none is
// entitled.
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

// readyConfigs returns the Ready ProviderConfigs that are not being
// deleted and may sweep. It reads them uncached: the sweep a
// ProviderConfig's turning Ready triggers must see it Ready.
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
