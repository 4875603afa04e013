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

// Releases remembers, per managed resource, what spans its reconciles:
// whether it is letting go of its object in Coder without a verified
// delete, until the removal of its finalizer is persisted (only then is the
// release counted, so a retry that then deletes is not); and the last
// delete sent for it, which the next look verifies on a list sent after
// Coder answered it. Observe only reads Coder and Delete only deletes, so a
// delete and the look that verifies it are two reconciles apart. It is the
// one memory of sent deletes: the pass's, and a kind client's own (a
// rotation's retire, a create's discards: Deleted). It is memory only:
// after a restart a resource's delete is sent again, once.
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

// A sentDelete is one delete for a resource: the ids of the Coder objects
// it deleted, when Coder answered, and its failure, nil when Coder
// accepted it all. pass: the pass's Delete sent it (which the bounded pass
// verifies, and whose acceptance a later Delete checks); a kind client's
// own delete outside it (Deleted) only dates the next look's list.
type sentDelete struct {
	ids  []string
	at   time.Time
	err  error
	pass bool
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

// prune forgets, at most once a minute, counted releases older than
// countedMemory, and a kind client's deletes as old: any list sent since
// serves the resource's look, and one that lacks a deleted object is sent
// again, once.
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
	for uid, d := range r.sent {
		if !d.pass && now.Sub(d.at) > countedMemory {
			delete(r.sent, uid)
		}
	}
}

// forget drops a mark: the resource deleted after all.
func (r *Releases) forget(uid types.UID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.m, uid)
}

// deleted notes the pass's delete of uid, begun at start and just
// answered: the objects it named, with those the kind's client noted
// deleting meanwhile (Deleted), and its failure.
func (r *Releases) deleted(uid types.UID, start time.Time, ids []string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	d := r.sent[uid]
	if d.at.Before(start) {
		// An earlier delete's.
		d.ids = nil
	}
	for _, id := range ids {
		if !slices.Contains(d.ids, id) {
			d.ids = append(d.ids, id)
		}
	}
	r.sent[uid] = sentDelete{ids: d.ids, at: time.Now(), err: err, pass: true}
}

// Deleted notes that Coder answered, at at, uid's delete of the objects of
// ids, sent by the kind's client: within the pass's Delete (the pass then
// notes it as its own), or outside it (a rotation's retire). The
// resource's next look lists after at (DeletedAt), and the absence of ids
// on such a list is verified (DeletedBefore); every other resource goes on
// with the shared list, which the delete did not change for it.
func (r *Releases) Deleted(uid types.UID, at time.Time, ids ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.prune(time.Now())
	r.sent[uid] = sentDelete{ids: ids, at: at}
}

// DeletedAt returns when Coder answered uid's last delete, while no look
// has verified it yet.
func (r *Releases) DeletedAt(uid types.UID) (time.Time, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	d, ok := r.sent[uid]
	return d.at, ok
}

// DeletedBefore reports whether Coder answered uid's delete of id before a
// list sent at sent: that list not showing the object verifies it gone.
func (r *Releases) DeletedBefore(uid types.UID, sent time.Time, id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	d, ok := r.sent[uid]
	return ok && !sent.Before(d.at) && slices.Contains(d.ids, id)
}

// lastDelete returns the last delete the pass sent for uid, if one awaits
// its verification.
func (r *Releases) lastDelete(uid types.UID) (sentDelete, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	d, ok := r.sent[uid]
	return d, ok && d.pass
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
