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
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	namespacedv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/deletion"
)

// killWindow is how close to a resource's observed removal a SIGKILL may
// cut the count of its release (the counter moves right after the removal
// is persisted, in the same goroutine; the watch reports it a moment
// later).
const killWindow = 2 * time.Second

// check checks the invariants on the quiet world and returns the releases
// counted and expected.
func (r *run) check(ctx context.Context) (counted, expected int) {
	o := r.ownership(ctx)
	waiting := r.waitingForUnreachableCreators(ctx)
	for _, w := range waiting {
		r.logf("quiet: %s %q waits for the ProviderConfig that made it, which cannot reach Coder: the teardown makes it reach Coder again", kindName(w.Kind), w.Name)
	}
	rows := LeftForCreators(r.rows(), waiting)
	for _, v := range Leaks(rows, o) {
		r.violate("1 leak: %s", v)
	}
	r.sample(ctx, "quiet")

	if err := r.collectCounter(ctx); err != nil {
		r.violate("3 releases: cannot read the provider's metrics: %v", err)
	}
	recs, gone := r.watch.history()
	exp, may := ExpectedReleases(recs, gone)
	lost := 0
	for _, uid := range exp {
		at, _ := r.watch.goneTime(uid)
		for _, k := range r.kills {
			// Either side: the watcher sees the removal a moment after
			// it is persisted, and a loaded machine stretches that.
			if d := k.Sub(at); d > -killWindow && d < killWindow {
				lost++
				break
			}
		}
	}
	counted, expected = int(r.counted+0.5), len(exp)
	for _, v := range Releases(counted, expected, len(may), lost) {
		r.violate("3 releases: %s", v)
	}

	texts := r.watch.snapshot()
	texts["provider logs"] = r.bed.Provider.Logs()
	secrets := make([]string, 0, len(r.secrets))
	r.mu.Lock()
	for s := range r.secrets {
		secrets = append(secrets, s)
	}
	peaks := r.peaks
	r.mu.Unlock()
	for _, v := range Exposed(texts, secrets) {
		r.violate("4 secrets: %s", v)
	}
	if f, ok := r.coder.(interface{ PeakKeys(func(string) bool) int }); ok {
		// The fake knows every moment, not only the harness's samples.
		for _, inc := range o.Incarnations {
			m := r.plan.World.MRs[inc.MR]
			if m.Kind != Key {
				continue
			}
			own := Ownership{World: r.plan.World, Incarnations: []Incarnation{inc}}
			n := f.PeakKeys(func(name string) bool {
				_, uid, ok := own.owner(Row{Kind: Key, Name: name})
				return ok && uid == inc.UID
			})
			peaks[inc.UID] = max(peaks[inc.UID], n)
		}
	}
	for _, v := range Duplicates(peaks) {
		r.violate("5 duplicates: %s", v)
	}
	return counted, expected
}

// teardown deletes the world with Coder up, the quiet ProviderConfig
// last, as an operator who keeps using the deployment would: it must go
// within a bound and leave in Coder only what it keeps on purpose, once the
// sweep has taken what releases left.
func (r *run) teardown(ctx context.Context) {
	w := r.plan.World
	var objs []client.Object
	for _, m := range w.MRs {
		if m.Namespace == "" {
			objs = append(objs, mrKey(m))
		}
	}
	for _, pc := range w.PCs {
		if pc.Kind != Namespaced {
			objs = append(objs, w.pcKey(pc))
		}
	}
	for _, ns := range append(append([]string(nil), w.Namespaces...), w.System) {
		objs = append(objs, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	}
	if !r.deleteAll(ctx, objs) {
		return
	}
	// What vanished without our finalizer (stripped, or deleted before it
	// was placed) is swept once its records pass the grace.
	r.waitGrace(ctx)
	made := r.makeCreatorsAgain(ctx)
	r.until(ctx, time.Minute, func() bool { return len(r.abandoned(ctx)) == 0 && len(r.vanished(ctx)) == 0 })
	if len(made) > 0 {
		r.deleteAll(ctx, made)
	}
	o := Ownership{World: w, Imported: r.imported, Adopted: map[string]bool{}}
	for id := range r.imported {
		o.Adopted[id] = r.watch.wasRecorded(id)
	}
	r.mu.Lock()
	o.Incarnations = r.incarnations
	r.mu.Unlock()
	for _, v := range Leaks(r.rows(), o) {
		r.violate("1 leak after teardown: %s", v)
	}
	r.deleteAll(ctx, []client.Object{
		&namespacedv1alpha1.ClusterProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: w.Prefix + "-quiet"}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: w.Prefix + "-quiet"}},
	})
	r.logf("teardown: done")
}

// waitsForCreator is what the sweep writes in the lastError of a record of
// an AI provider known by name only, swept through another ProviderConfig
// than the one that made it.
const waitsForCreator = "only the ProviderConfig that made it may find it by name"

// makeCreatorsAgain makes again, as docs/how-to/deletion.md tells an
// operator to, each ProviderConfig of the world that the teardown deleted
// and an Abandoned record of an AI provider known by name only waits for.
// Only that ProviderConfig may find the provider by the name its resource
// chose, so it is the sweep's only way to it: a resource released while
// Coder's answer to its create went unread (Coder went down in between),
// whose ProviderConfig was then deleted, leaves such a record. It returns
// what it made, for the teardown to delete again once the sweep is done.
func (r *run) makeCreatorsAgain(ctx context.Context) []client.Object {
	w := r.plan.World
	var made []client.Object
	done := map[int]bool{}
	for _, rec := range r.waitingForCreators(ctx) {
		i, ok := w.pcNamed(*rec.Spec.ProviderConfig)
		if !ok {
			r.violate("1 leak after teardown: record %s waits for %s %s, which is not the world's", rec.Name, rec.Spec.ProviderConfig.Kind, objName(rec.Spec.ProviderConfig.Namespace, rec.Spec.ProviderConfig.Name))
			continue
		}
		if o := w.pcKey(w.PCs[i]); done[i] || r.kube.Get(ctx, client.ObjectKeyFromObject(o), o) == nil {
			continue
		}
		done[i] = true
		made = append(made, r.makeAgain(ctx, w.PCs[i])...)
		r.logf("teardown: made %s %s again, which record %s of a provider known by name only waits for", rec.Spec.ProviderConfig.Kind, objName(w.PCs[i].Namespace, w.PCs[i].Name), rec.Name)
	}
	return made
}

// waitingForCreators are the world's Abandoned records of AI providers
// known by name only, once each says in its lastError that it waits for
// the ProviderConfig that made it (within a minute, or a violation: a
// human reads that message to act).
func (r *run) waitingForCreators(ctx context.Context) []clusterv1alpha1.CleanupRecord {
	var waiting []clusterv1alpha1.CleanupRecord
	said := func() bool {
		for _, rec := range waiting {
			if !strings.Contains(rec.Status.LastError, waitsForCreator) {
				return false
			}
		}
		return true
	}
	if r.until(ctx, time.Minute, func() bool {
		waiting = waiting[:0]
		l := &clusterv1alpha1.CleanupRecordList{}
		if err := r.kube.List(ctx, l); err != nil {
			return false
		}
		for _, rec := range l.Items {
			uid := types.UID(rec.Labels[deletion.ManagedResourceUIDLabel])
			if r.incarnation(uid) && rec.Status.Phase == clusterv1alpha1.CleanupPhaseAbandoned && (rec.Spec.Kind == deletion.KindProvider || rec.Spec.Kind == deletion.KindMCPServer) &&
				rec.Status.ExternalID == "" && rec.Status.CreateAttemptedAt != nil && rec.Spec.ProviderConfig != nil {
				waiting = append(waiting, rec)
			}
		}
		return said()
	}) {
		return waiting
	}
	for _, rec := range waiting {
		if !strings.Contains(rec.Status.LastError, waitsForCreator) {
			r.violate("1 leak after teardown: record %s of a provider known by name only does not say what it waits for (lastError %q)", rec.Name, rec.Status.LastError)
		}
	}
	return waiting
}

// waitingForUnreachableCreators are the objects the world's Abandoned
// records of providers and MCP servers known by name only keep for their
// creators, as each record's lastError says, while that ProviderConfig is
// gone or not Ready. Whatever a Ready creator could sweep is no such wait.
func (r *run) waitingForUnreachableCreators(ctx context.Context) []Waiting {
	l := &clusterv1alpha1.CleanupRecordList{}
	if err := r.kube.List(ctx, l); err != nil {
		return nil
	}
	kinds := map[string]MRKind{deletion.KindProvider: Provider, deletion.KindMCPServer: MCP}
	var out []Waiting
	for _, rec := range l.Items {
		kind, ok := kinds[rec.Spec.Kind]
		if !ok || !r.incarnation(types.UID(rec.Labels[deletion.ManagedResourceUIDLabel])) ||
			rec.Status.Phase != clusterv1alpha1.CleanupPhaseAbandoned || rec.Status.ExternalID != "" ||
			rec.Status.CreateAttemptedAt == nil || rec.Spec.ProviderConfig == nil ||
			!strings.Contains(rec.Status.LastError, waitsForCreator) {
			continue
		}
		if i, ok := r.plan.World.pcNamed(*rec.Spec.ProviderConfig); ok {
			pc := r.plan.World.pcKey(r.plan.World.PCs[i])
			if r.kube.Get(ctx, client.ObjectKeyFromObject(pc), pc) == nil && isReady(pc) {
				continue
			}
		}
		out = append(out, Waiting{Kind: kind, Name: rec.Status.CoderName})
	}
	return out
}

// makeAgain makes pc again, with its namespace and its token Secret's, and
// returns what the teardown deletes again: the ProviderConfig, then the
// namespaces.
func (r *run) makeAgain(ctx context.Context, pc PC) []client.Object {
	w := r.plan.World
	sec := w.Secrets[pc.Secret]
	var namespaces []client.Object
	for _, ns := range []string{pc.Namespace, sec.Namespace} {
		if ns != "" && (len(namespaces) == 0 || namespaces[0].GetName() != ns) {
			namespaces = append(namespaces, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
		}
	}
	o := w.pcObject(pc, r.coder.URL(), sec.Name)
	for _, obj := range append(append(namespaces, secretObject(sec, tokenKey, r.coder.Token())), o) {
		if err := r.kube.Create(ctx, obj); err != nil && !kerrors.IsAlreadyExists(err) {
			r.violate("teardown: cannot make %T %s again: %v", obj, objName(obj.GetNamespace(), obj.GetName()), err)
		}
	}
	return append([]client.Object{o}, namespaces...)
}

// deleteAll deletes objs and waits, within a bound, until they are gone.
func (r *run) deleteAll(ctx context.Context, objs []client.Object) bool {
	for _, o := range objs {
		if err := r.kube.Delete(ctx, o); err != nil && !kerrors.IsNotFound(err) {
			r.violate("teardown: cannot delete %T %s: %v", o, o.GetName(), err)
		}
	}
	const bound = 2 * time.Minute
	if !r.until(ctx, bound, func() bool {
		for _, o := range objs {
			if err := r.kube.Get(ctx, client.ObjectKeyFromObject(o), o); !kerrors.IsNotFound(err) {
				return false
			}
		}
		return true
	}) {
		r.violate("teardown: not gone within %s with Coder up", bound)
		return false
	}
	return true
}

// Line is the one-line summary of a result.
func (res Result) Line() string {
	status := "ok"
	if len(res.Violations) > 0 {
		status = fmt.Sprintf("%d invariant violations", len(res.Violations))
	}
	return fmt.Sprintf("seed %d (%s): %d operations, %d kills, releases %d counted of %d, %s in %s",
		res.Seed, res.Flavour, res.Ops, res.Kills, res.Counted, res.Expected, status, res.Duration.Round(100*time.Millisecond))
}
