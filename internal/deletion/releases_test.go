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
	"errors"
	"testing"
	"time"
)

// TestADeleteIsVerifiedOnlyOnAListSentAfterCoderAnsweredIt: the one memory
// of sent deletes dates the resource's next look, verifies only the ids it
// deleted and only for its own resource, and is forgotten once verified.
func TestADeleteIsVerifiedOnlyOnAListSentAfterCoderAnsweredIt(t *testing.T) {
	r := NewReleases()
	before := time.Now()
	at := before.Add(time.Second)
	r.Deleted("uid-a", at, "k1")
	if got, ok := r.DeletedAt("uid-a"); !ok || !got.Equal(at) {
		t.Errorf("DeletedAt = %s, %t; want %s: the next look lists after the answer", got, ok, at)
	}
	if r.DeletedBefore("uid-a", before, "k1") {
		t.Error("a list sent before the delete's answer verifies the delete")
	}
	if !r.DeletedBefore("uid-a", at, "k1") {
		t.Error("a list sent after the delete's answer does not verify it")
	}
	if r.DeletedBefore("uid-a", at, "k2") || r.DeletedBefore("uid-b", at, "k1") {
		t.Error("a delete verifies an id it did not name, or another resource's look")
	}
	if _, ok := r.lastDelete("uid-a"); ok {
		t.Error("a kind client's own delete (a rotation's) is taken for the pass's, which the bounded pass would verify without sending its own")
	}
	r.verified("uid-a")
	if _, ok := r.DeletedAt("uid-a"); ok {
		t.Error("a verified delete is still pending")
	}
}

// TestThePassNotesWhatItsKindDeletedWithinItsDelete: the pass's note of its
// Delete keeps the ids the kind's client deleted within it, not those of
// an earlier delete.
func TestThePassNotesWhatItsKindDeletedWithinItsDelete(t *testing.T) {
	r := NewReleases()
	r.Deleted("uid", time.Now().Add(-time.Hour), "earlier")
	start := time.Now()
	r.Deleted("uid", time.Now(), "retiring")
	failed := errors.New("coder down")
	r.deleted("uid", start, []string{"current"}, failed)
	d, ok := r.lastDelete("uid")
	if !ok || !errors.Is(d.err, failed) {
		t.Fatalf("lastDelete = %+v, %t; want the pass's delete and its failure", d, ok)
	}
	if got := d.ids; len(got) != 2 || got[0] != "retiring" || got[1] != "current" {
		t.Errorf("the pass's delete names %v, want [retiring current]", got)
	}
	r.deleted("uid", time.Now(), []string{"again"}, nil)
	if d, _ := r.lastDelete("uid"); len(d.ids) != 1 || d.ids[0] != "again" {
		t.Errorf("a later delete names %v, want only its own", d.ids)
	}
}

// TestAKindsOwnDeletesAreForgottenOnceAnyListWouldServe bounds the memory:
// a rotation's delete of a key that lives on is forgotten after
// countedMemory (a later look lists once more), the pass's never before
// its resource goes.
func TestAKindsOwnDeletesAreForgottenOnceAnyListWouldServe(t *testing.T) {
	r := NewReleases()
	old := time.Now().Add(-2 * countedMemory)
	r.Deleted("rotated", old, "k")
	r.sent["deleting"] = sentDelete{ids: []string{"k"}, at: old, pass: true}
	r.lastPrune = time.Time{} // a minute on
	r.Deleted("other", time.Now(), "k2")
	if _, ok := r.DeletedAt("rotated"); ok {
		t.Error("a rotation's delete older than countedMemory is still remembered")
	}
	if _, ok := r.lastDelete("deleting"); !ok {
		t.Error("the pass's delete was forgotten before its verification")
	}
}
