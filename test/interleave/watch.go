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
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusteraiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/ai/v1alpha1"
	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	namespacedv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/deletion"
)

// A watcher follows, for one run, what the provider writes to the API
// server: the cleanup records' phases, the resources' removals, and the
// text of every status, record and event (to look for secrets in).
type watcher struct {
	world World

	mu      sync.Mutex
	records []RecordEvent
	gone    []Gone
	goneAt  map[types.UID]time.Time
	// texts are the published texts by where they were seen.
	texts    map[string]string
	stripped map[types.UID]bool
	// recorded are the Coder ids some record named, with its deployment.
	recorded map[string]bool
}

func startWatcher(ctx context.Context, kube client.WithWatch, w World) *watcher {
	wt := &watcher{world: w, goneAt: map[types.UID]time.Time{}, texts: map[string]string{}, stripped: map[types.UID]bool{}, recorded: map[string]bool{}}
	lists := []client.ObjectList{
		&clusterv1alpha1.CleanupRecordList{},
		&aiv1alpha1.AIGatewayKeyList{}, &aiv1alpha1.AIProviderList{},
		&clusteraiv1alpha1.AIGatewayKeyList{}, &clusteraiv1alpha1.AIProviderList{},
		&aiv1alpha1.MCPServerList{}, &clusteraiv1alpha1.MCPServerList{},
		&namespacedv1alpha1.ProviderConfigList{}, &namespacedv1alpha1.ClusterProviderConfigList{}, &clusterv1alpha1.ProviderConfigList{},
		&corev1.EventList{},
	}
	for _, l := range lists {
		go wt.follow(ctx, kube, l)
	}
	return wt
}

// follow watches one list from now on, watching again from the last
// version seen whenever the API server ends the watch.
func (wt *watcher) follow(ctx context.Context, kube client.WithWatch, l client.ObjectList) {
	rv := ""
	for ctx.Err() == nil {
		w, err := kube.Watch(ctx, l, &client.ListOptions{Raw: watchOptions(rv)})
		if err != nil {
			time.Sleep(200 * time.Millisecond)
			continue
		}
		for ev := range w.ResultChan() {
			o, ok := ev.Object.(client.Object)
			if !ok {
				continue
			}
			rv = o.GetResourceVersion()
			wt.observe(ev.Type, o)
		}
		w.Stop()
	}
}

func (wt *watcher) observe(t watch.EventType, o client.Object) {
	if !wt.ours(o) {
		return
	}
	rv, _ := strconv.ParseUint(o.GetResourceVersion(), 10, 64)
	b, _ := json.Marshal(o)
	where := fmt.Sprintf("%T %s", o, objName(o.GetNamespace(), o.GetName()))
	wt.mu.Lock()
	defer wt.mu.Unlock()
	wt.texts[where] += string(b) + "\n"
	switch rec := o.(type) {
	case *clusterv1alpha1.CleanupRecord:
		wt.records = append(wt.records, RecordEvent{
			RV: rv, Record: rec.Name, UID: types.UID(rec.Labels[deletion.ManagedResourceUIDLabel]),
			Abandoned: rec.Status.Phase == clusterv1alpha1.CleanupPhaseAbandoned, Deleted: t == watch.Deleted,
			Released: rec.Status.Phase == clusterv1alpha1.CleanupPhaseAbandoned && rec.Status.Reason != deletion.ReasonManagedResourceGone,
		})
		if rec.Status.ExternalID != "" && rec.Spec.DeploymentID != "" {
			wt.recorded[rec.Status.ExternalID] = true
		}
	case *aiv1alpha1.AIGatewayKey, *aiv1alpha1.AIProvider, *clusteraiv1alpha1.AIGatewayKey, *clusteraiv1alpha1.AIProvider,
		*aiv1alpha1.MCPServer, *clusteraiv1alpha1.MCPServer:
		if t == watch.Deleted {
			wt.gone = append(wt.gone, Gone{RV: rv, UID: o.GetUID()})
			wt.goneAt[o.GetUID()] = time.Now()
		}
	}
}

// ours reports whether o belongs to the run's world: records of any
// resource (their UIDs tell later), everything else by name.
func (wt *watcher) ours(o client.Object) bool {
	if _, ok := o.(*clusterv1alpha1.CleanupRecord); ok {
		return true
	}
	p := wt.world.Prefix
	if e, ok := o.(*corev1.Event); ok {
		return strings.HasPrefix(e.Namespace, p) || strings.HasPrefix(e.InvolvedObject.Name, p)
	}
	return strings.HasPrefix(o.GetNamespace(), p) || strings.HasPrefix(o.GetName(), p)
}

func (wt *watcher) text(where, text string) {
	wt.mu.Lock()
	defer wt.mu.Unlock()
	wt.texts[where] = text
}

func (wt *watcher) strip(uid types.UID) {
	wt.mu.Lock()
	defer wt.mu.Unlock()
	wt.stripped[uid] = true
}

// history returns the records' events in resource version order and the
// removals, stripped ones marked.
func (wt *watcher) history() ([]RecordEvent, []Gone) {
	wt.mu.Lock()
	defer wt.mu.Unlock()
	recs := append([]RecordEvent(nil), wt.records...)
	sort.SliceStable(recs, func(i, j int) bool { return recs[i].RV < recs[j].RV })
	gone := make([]Gone, 0, len(wt.gone))
	for _, g := range wt.gone {
		g.Stripped = wt.stripped[g.UID]
		gone = append(gone, g)
	}
	return recs, gone
}

// snapshot returns the texts seen so far.
func (wt *watcher) snapshot() map[string]string {
	wt.mu.Lock()
	defer wt.mu.Unlock()
	out := make(map[string]string, len(wt.texts))
	for k, v := range wt.texts {
		out[k] = v
	}
	return out
}

// wasRecorded reports whether a record ever named the Coder id.
func (wt *watcher) wasRecorded(id string) bool {
	wt.mu.Lock()
	defer wt.mu.Unlock()
	return wt.recorded[id]
}

// goneTime is when the watcher saw uid go.
func (wt *watcher) goneTime(uid types.UID) (time.Time, bool) {
	wt.mu.Lock()
	defer wt.mu.Unlock()
	t, ok := wt.goneAt[uid]
	return t, ok
}

// watchOptions watch from rv, or from now when rv is empty.
func watchOptions(rv string) *metav1.ListOptions {
	return &metav1.ListOptions{ResourceVersion: rv, AllowWatchBookmarks: true}
}
