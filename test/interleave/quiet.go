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

package interleave

import (
	"context"
	"fmt"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	namespacedv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/deletion"
	"github.com/crossplane-contrib/provider-coder/internal/provider"
	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
)

// settle is how long past its documented bound the harness gives anything
// Terminating: a poll, a requeue and the API server's own pace.
const settle = 30 * time.Second

// retryCap is the longest a failed reconcile waits for its retry: the
// managed reconcilers' per-item backoff (crossplane-runtime's
// ratelimiter.NewController, 1 s doubling to 60 s).
const retryCap = 60 * time.Second

// sweepGrace is the provider's default --sweep-grace, which the harness
// does not change.
var sweepGrace = provider.DefaultOptions().SweepGrace

// quiet brings the world to rest: Coder up without faults, the provider
// running, nothing Terminating, a Ready ProviderConfig for the deployment
// and one sweep after every vanished resource's records passed their grace.
func (r *run) quiet(ctx context.Context) {
	for _, ep := range FaultEndpoints {
		r.coder.ClearFault(ep)
	}
	if r.down {
		if err := r.coder.SetDown(false); err != nil {
			r.violate("quiet: Coder does not come up: %v", err)
		}
		r.down = false
	}
	if err := r.ensureProvider(ctx); err != nil {
		r.violate("quiet: %v", err)
		return
	}
	r.repointBack(ctx)
	r.logf("quiet: Coder up, no faults, provider running")
	r.waitTerminating(ctx)
	r.waitGrace(ctx)
	sweeps := r.sweeps(ctx)
	name := r.plan.World.Prefix + "-quiet"
	sec := Secret{Namespace: name, Name: "token"}
	if err := r.kube.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
		r.violate("quiet: cannot create the quiet namespace: %v", err)
		return
	}
	if err := r.kube.Create(ctx, secretObject(sec, tokenKey, r.coder.Token())); err != nil {
		r.violate("quiet: cannot create the quiet token Secret: %v", err)
		return
	}
	pc := &namespacedv1alpha1.ClusterProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: name}}
	pc.Spec = r.plan.World.pcObject(PC{Kind: Cluster, Name: name, Short: true}, r.coder.URL(), sec.Name).(*namespacedv1alpha1.ClusterProviderConfig).Spec
	pc.Spec.Credentials.SecretRef.Namespace = sec.Namespace
	if err := r.kube.Create(ctx, pc); err != nil {
		r.violate("quiet: cannot create the quiet ProviderConfig: %v", err)
		return
	}
	if !r.until(ctx, time.Minute, func() bool {
		_ = r.kube.Get(ctx, client.ObjectKeyFromObject(pc), pc)
		return isReady(pc)
	}) {
		r.violate("quiet: the quiet ProviderConfig is not Ready after a minute")
		return
	}
	// Its turning Ready triggers a sweep; wait for it to finish and for
	// the Abandoned records it could sweep to go.
	if !r.until(ctx, time.Minute, func() bool { return r.sweeps(ctx) > sweeps }) {
		r.violate("quiet: no sweep within a minute of the quiet ProviderConfig turning Ready")
	}
	r.until(ctx, 30*time.Second, func() bool { return len(r.abandoned(ctx)) == 0 })
	r.logf("quiet: swept; %d Abandoned records left", len(r.abandoned(ctx)))
}

// sweeps is how many sweeps the running provider finished.
func (r *run) sweeps(ctx context.Context) float64 {
	s, err := r.bed.Provider.Scrape(ctx)
	if err != nil {
		return -1
	}
	return s.Sum("provider_coder_cleanup_sweep_duration_seconds")
}

func (r *run) until(ctx context.Context, d time.Duration, cond func() bool) bool {
	return wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, d, true, func(context.Context) (bool, error) {
		return cond(), nil
	}) == nil
}

// A terminating object is one the world put a finalizer on (or the
// provider did) that is being deleted, with the latest it may go.
type terminating struct {
	what     string
	deadline time.Time
}

// waitTerminating waits until nothing of the world is Terminating, and
// records a violation for each object past its bound: a ProviderConfig (and
// its namespace, and its token Secret) holds at most its dependent timeout
// plus the grace at its maximum; a resource, once Coder is up, at most
// what its ProviderConfig's hold allows.
func (r *run) waitTerminating(ctx context.Context) {
	quietAt := time.Now()
	reported := map[string]bool{}
	for {
		ts := r.terminating(ctx, quietAt)
		if len(ts) == 0 {
			r.logf("quiet: nothing Terminating")
			return
		}
		now := time.Now()
		past := 0
		for _, t := range ts {
			if !now.After(t.deadline) {
				continue
			}
			past++
			if !reported[t.what] {
				reported[t.what] = true
				r.violate("2 bounds: %s is still Terminating %s past its bound", t.what, now.Sub(t.deadline).Round(time.Second))
			}
		}
		if past == len(ts) {
			return
		}
		if ctx.Err() != nil {
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// pcStands reports whether pc exists and is not being deleted.
func (r *run) pcStands(ctx context.Context, pc PC) bool {
	o := r.plan.World.pcKey(pc)
	return r.kube.Get(ctx, client.ObjectKeyFromObject(o), o) == nil && o.GetDeletionTimestamp() == nil
}

// secretsInUse are the token Secrets that ProviderConfigs not being deleted
// point at now.
func (r *run) secretsInUse(ctx context.Context) map[types.NamespacedName]bool {
	w := r.plan.World
	out := map[types.NamespacedName]bool{}
	for _, pc := range w.PCs {
		o := w.pcKey(pc)
		if err := r.kube.Get(ctx, client.ObjectKeyFromObject(o), o); err != nil || o.GetDeletionTimestamp() != nil {
			continue
		}
		if nn, ok := tokenSecretOf(o); ok {
			out[nn] = true
		}
	}
	return out
}

func tokenSecretOf(o client.Object) (types.NamespacedName, bool) {
	switch pc := o.(type) {
	case *namespacedv1alpha1.ProviderConfig:
		if ref := pc.Spec.Credentials.SecretRef; ref != nil {
			return types.NamespacedName{Namespace: pc.Namespace, Name: ref.Name}, true
		}
	case *namespacedv1alpha1.ClusterProviderConfig:
		if ref := pc.Spec.Credentials.SecretRef; ref != nil {
			return types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}, true
		}
	case *clusterv1alpha1.ProviderConfig:
		if ref := pc.Spec.Credentials.SecretRef; ref != nil {
			return types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}, true
		}
	}
	return types.NamespacedName{}, false
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func (r *run) terminating(ctx context.Context, quietAt time.Time) []terminating {
	w := r.plan.World
	bound := holdBound(false) + settle
	var objs []client.Object
	for _, ns := range append([]string{w.System}, w.Namespaces...) {
		objs = append(objs, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	}
	for _, s := range w.Secrets {
		objs = append(objs, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: s.Namespace, Name: s.Name}})
	}
	for _, pc := range w.PCs {
		objs = append(objs, w.pcKey(pc))
	}
	waiting := map[string]bool{}
	for _, m := range w.MRs {
		objs = append(objs, mrKey(m))
		if r.pcStands(ctx, w.PCs[m.PC]) {
			waiting[objName(m.Namespace, m.Name)] = true
		}
	}
	inUse := r.secretsInUse(ctx)
	var out []terminating
	for _, o := range objs {
		if err := r.kube.Get(ctx, client.ObjectKeyFromObject(o), o); err != nil || o.GetDeletionTimestamp() == nil {
			continue
		}
		if _, ok := o.(*corev1.Secret); ok && inUse[types.NamespacedName{Namespace: o.GetNamespace(), Name: o.GetName()}] {
			// Documented: a token Secret stays while a ProviderConfig
			// that is not being deleted needs it, as a PVC in use does.
			continue
		}
		if _, ok := o.(resource.Managed); ok && waiting[objName(o.GetNamespace(), o.GetName())] {
			// Documented: a resource whose ProviderConfig stands (not
			// being deleted) retries its delete until it succeeds, or
			// until the ProviderConfig's deletion bounds the wait.
			continue
		}
		// Everything is bound by the longest hold from its own deletion,
		// and, once quiet, by a settle after the quiet began. A namespace
		// whose resources use a ClusterProviderConfig that stands is bound
		// by that hold's dependent timeout, then two retries: the bounded
		// pass's delete and its look (docs/how-to/deletion.md).
		b := bound
		if _, ok := o.(*corev1.Namespace); ok {
			b += 2 * retryCap
		}
		d := maxTime(o.GetDeletionTimestamp().Add(b), quietAt.Add(settle))
		out = append(out, terminating{what: fmt.Sprintf("%T %s", o, objName(o.GetNamespace(), o.GetName())), deadline: d})
	}
	return out
}

// waitGrace waits until the Active records of resources that vanished
// (their finalizer stripped by hand) are older than the sweep's grace: only
// then may the sweep take their objects.
func (r *run) waitGrace(ctx context.Context) {
	l := &clusterv1alpha1.CleanupRecordList{}
	if err := r.kube.List(ctx, l); err != nil {
		r.violate("quiet: cannot list records: %v", err)
		return
	}
	live := r.liveUIDs(ctx)
	var latest time.Time
	for _, rec := range l.Items {
		uid := types.UID(rec.Labels[deletion.ManagedResourceUIDLabel])
		if !r.incarnation(uid) || live[uid] || rec.Status.Phase != clusterv1alpha1.CleanupPhaseActive {
			continue
		}
		latest = maxTime(latest, rec.CreationTimestamp.Add(sweepGrace))
	}
	if d := time.Until(latest); d > 0 {
		r.logf("quiet: waiting %s for the sweep's grace on vanished resources", d.Round(time.Second))
		time.Sleep(d + time.Second)
	}
}

func (r *run) incarnation(uid types.UID) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, inc := range r.incarnations {
		if inc.UID == uid {
			return true
		}
	}
	return false
}

func (r *run) liveUIDs(ctx context.Context) map[types.UID]bool {
	out := map[types.UID]bool{}
	for _, m := range r.plan.World.MRs {
		o := mrKey(m)
		if err := r.kube.Get(ctx, client.ObjectKeyFromObject(o), o); err == nil {
			out[o.GetUID()] = true
		}
	}
	return out
}

// abandoned lists the world's Abandoned records.
func (r *run) abandoned(ctx context.Context) []string {
	return r.records(ctx, func(rec *clusterv1alpha1.CleanupRecord, _ bool) bool {
		return rec.Status.Phase == clusterv1alpha1.CleanupPhaseAbandoned
	})
}

// vanished lists the world's Active records whose resource is gone.
func (r *run) vanished(ctx context.Context) []string {
	return r.records(ctx, func(rec *clusterv1alpha1.CleanupRecord, live bool) bool {
		return !live && rec.Status.Phase == clusterv1alpha1.CleanupPhaseActive
	})
}

// records lists the names of the world's records that match, told whether
// their resource lives.
func (r *run) records(ctx context.Context, match func(rec *clusterv1alpha1.CleanupRecord, live bool) bool) []string {
	l := &clusterv1alpha1.CleanupRecordList{}
	if err := r.kube.List(ctx, l); err != nil {
		return []string{"cannot list: " + err.Error()}
	}
	live := r.liveUIDs(ctx)
	var out []string
	for i := range l.Items {
		uid := types.UID(l.Items[i].Labels[deletion.ManagedResourceUIDLabel])
		if r.incarnation(uid) && match(&l.Items[i], live[uid]) {
			out = append(out, l.Items[i].Name)
		}
	}
	sort.Strings(out)
	return out
}

// repointBack points every ProviderConfig of the world that is still there
// at the run's Coder, as an operator repairs a mistake: the plan already
// brought back every one it sent away, unless its patch failed.
func (r *run) repointBack(ctx context.Context) {
	w := r.plan.World
	for i, pc := range w.PCs {
		if o, ok := w.pcKey(pc).(providerconfig.Object); ok && r.kube.Get(ctx, client.ObjectKeyFromObject(o), o) == nil &&
			providerconfig.ConnectionOf(o).URL != r.coder.URL() {
			r.mu.Lock()
			r.repointed[i] = time.Now()
			r.mu.Unlock()
		}
		err := r.kube.Patch(ctx, w.pcKey(pc), client.RawPatch(types.MergePatchType, repointURL(r.coder.URL())))
		if err != nil && !kerrors.IsNotFound(err) {
			r.violate("quiet: cannot point %s back at the run's Coder: %v", pcName(pc), err)
		}
	}
}
