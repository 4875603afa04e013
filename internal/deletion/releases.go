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
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// Releases remembers, per deleting managed resource, what spans its
// reconciles: whether it is letting go of its object in Coder without a
// verified delete, until the removal of its finalizer is persisted (only
// then is the release counted, so a retry that then deletes is not); and
// the last delete sent for it, which the next Observe verifies. Observe
// only reads Coder and Delete only deletes, so a delete and the look that
// verifies it are two reconciles apart. It is memory only: after a restart
// a resource's delete is sent again, once.
type Releases struct {
	mu sync.Mutex
	m  map[types.UID]string
	// sent is the last delete of each resource: what it named and how it
	// ended.
	sent map[types.UID]sentDelete
	// counted is when each resource's release without delete was counted,
	// so a reconcile that read the resource from a cache not yet past its
	// removal (it decides the release again, and its removal finds the
	// resource gone) does not count it twice. Forgotten after
	// countedMemory, far longer than a cache lags.
	counted   map[types.UID]time.Time
	lastPrune time.Time
}

// countedMemory is how long a counted release is remembered.
const countedMemory = 10 * time.Minute

// A sentDelete is one Delete of a deleting resource: the ids of the Coder
// objects it deleted, and its failure, nil when Coder accepted it all.
type sentDelete struct {
	ids []string
	err error
}

// NewReleases returns an empty registry.
func NewReleases() *Releases {
	return &Releases{m: map[types.UID]string{}, sent: map[types.UID]sentDelete{}, counted: map[types.UID]time.Time{}}
}

// mark notes that uid releases without a delete, and why.
func (r *Releases) mark(uid types.UID, why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.m[uid] = why
}

// peek returns why uid releases without a delete, if it does.
func (r *Releases) peek(uid types.UID) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	why, ok := r.m[uid]
	return why, ok
}

// take returns and forgets why uid released without a delete, and forgets
// its deletes: its finalizer is gone. It reports a release once: a uid
// whose release was taken already is not reported again.
func (r *Releases) take(uid types.UID) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	why, ok := r.m[uid]
	delete(r.m, uid)
	delete(r.sent, uid)
	if !ok {
		return "", false
	}
	now := time.Now()
	r.prune(now)
	if _, done := r.counted[uid]; done {
		return why, false
	}
	r.counted[uid] = now
	return why, true
}

// prune forgets counted releases older than countedMemory, at most once a
// minute.
func (r *Releases) prune(now time.Time) {
	if now.Sub(r.lastPrune) < time.Minute {
		return
	}
	r.lastPrune = now
	for uid, at := range r.counted {
		if now.Sub(at) > countedMemory {
			delete(r.counted, uid)
		}
	}
}

// forget drops a mark: the resource deleted after all.
func (r *Releases) forget(uid types.UID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.m, uid)
}

// deleted notes the delete just sent for uid: the objects it named, and its
// failure.
func (r *Releases) deleted(uid types.UID, ids []string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sent[uid] = sentDelete{ids: ids, err: err}
}

// lastDelete returns the last delete sent for uid, if one awaits its
// verification.
func (r *Releases) lastDelete(uid types.UID) (sentDelete, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	d, ok := r.sent[uid]
	return d, ok
}

// verified forgets uid's last delete: a look after it decided.
func (r *Releases) verified(uid types.UID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.sent, uid)
}

// acceptedBefore reports whether Coder accepted the delete of one of ids
// for uid already, in the delete before this one: the object outlived it.
func (r *Releases) acceptedBefore(uid types.UID, ids []string) bool {
	d, ok := r.lastDelete(uid)
	return ok && d.err == nil && slices.ContainsFunc(ids, func(id string) bool { return id != "" && slices.Contains(d.ids, id) })
}
