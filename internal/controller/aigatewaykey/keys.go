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

package aigatewaykey

import (
	"context"
	"time"

	"github.com/coder/coder/v2/codersdk"
	"github.com/google/uuid"

	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
	"github.com/crossplane-contrib/provider-coder/internal/deletion"
)

// The resource's keys in Coder: which they are, how they are listed
// through the shared key list, and how they are deleted.

// ownKey is one of the resource's keys in Coder, with its rotation counter.
type ownKey struct {
	codersdk.AIGatewayKey
	counter int
	// derived: the resource created it (its name derives from the
	// resource); otherwise it was imported by external name.
	derived bool
}

// own returns the resource's keys: every key whose name one of its
// rotations derives, and the keys ids point at: its external name and the
// ids its cleanup records hold (an imported key may have any name, and
// stays the resource's while a rotation retires it).
func own(k Resource, list *coder.KeyList, ids ...string) []ownKey {
	names := NamesOf(k.KeyParameters().NamePrefix, k.GetNamespace(), k.GetName(), string(k.GetUID()))
	claim := deletion.KeyClaim{IDs: ids, Name: func(n string) bool { _, ok := names.Counter(n); return ok }}
	// The index narrows the deployment's keys to a few candidates; the
	// claim decides which are the resource's.
	owned := deletion.OwnedKeys(list.Find(names.Word(), ids...), claim, nil)
	out := make([]ownKey, 0, len(owned))
	for _, c := range owned {
		n, derived := names.Counter(c.Name)
		out = append(out, ownKey{AIGatewayKey: c, counter: n, derived: derived})
	}
	return out
}

// list returns the keys of the ProviderConfig's Coder for k. The shared
// list may be a few seconds old, but never older than Coder's answer to
// k's last delete (Releases.DeletedAt); before it says the key of external
// name id is absent, a list sent during this call confirms it, unless the
// list was sent after k's own delete of it. A key imported a moment after
// it was made in Coder is then seen, not replaced by a new key, and a
// delete is never verified on a list older than the delete or the key.
func (e *external) list(ctx context.Context, k Resource, id string) (*coder.KeyList, error) {
	start := time.Now()
	since, _ := e.sent.DeletedAt(k.GetUID())
	list, err := e.keys.ListSince(ctx, e.scope, e.coder, since)
	if err != nil || id == "" {
		return list, err
	}
	if uid, perr := uuid.Parse(id); perr == nil {
		if _, ok := list.ByID(uid); ok || e.sent.DeletedBefore(k.GetUID(), list.Sent(), id) {
			return list, nil
		}
	}
	if since.Before(start) {
		since = start
	}
	return e.keys.ListSince(ctx, e.scope, e.coder, since)
}

// createKey creates the key name and confirms Coder's answer: it must name
// the key asked for, and a list sent after the answer must show its id
// under that name. An answer naming another key, or an id the list shows
// under another name (a server answering with someone else's ids), is no
// proof of anything: its id could be anyone's, and this resource would
// delete it. Either is a coder.UnconfirmedError, an unknown outcome, as a
// timeout is: what the create made is found again by its name. The shared
// list is invalidated either way, so the next Observe sees Coder as it is.
// The confirming list is the shared one, so the creates of one
// ProviderConfig that finish together share it.
func (e *external) createKey(ctx context.Context, name string) (codersdk.CreateAIGatewayKeyResponse, error) {
	resp, err := e.coder.CreateKey(ctx, name)
	e.keys.Invalidate(e.scope)
	if err != nil {
		return resp, err
	}
	unconfirmed := &coder.UnconfirmedError{Kind: "AI Gateway key", Asked: name, Got: resp.Name, ID: resp.ID.String()}
	if resp.Name != name {
		return codersdk.CreateAIGatewayKeyResponse{}, unconfirmed
	}
	list, err := e.keys.ListSince(ctx, e.scope, e.coder, time.Now())
	if err != nil {
		// The key was made, but is not confirmed: found by name later.
		return codersdk.CreateAIGatewayKeyResponse{}, err
	}
	listed, ok := list.ByID(resp.ID)
	if !ok || listed.Name != name {
		if ok {
			unconfirmed.Got = listed.Name
		}
		return codersdk.CreateAIGatewayKeyResponse{}, unconfirmed
	}
	return resp, nil
}

// deleteKeys asks Coder to delete every key of ids, keys of k. The next
// Observe of k verifies their absence on a list sent after Coder's answer
// (Releases.Deleted); every other key goes on with the shared list, which
// the delete did not change for them. With no ids nothing changed in Coder.
func (e *external) deleteKeys(ctx context.Context, k Resource, ids ...uuid.UUID) error {
	if len(ids) == 0 {
		return nil
	}
	err := deletion.DeleteKeys(ctx, e.coder, ids...)
	// Noted whatever the answer: a delete that failed may have been
	// carried out.
	noted := make([]string, 0, len(ids))
	for _, id := range ids {
		noted = append(noted, id.String())
	}
	e.sent.Deleted(k.GetUID(), time.Now(), noted...)
	return err
}

// idsOf are the Coder ids of keys; Key ids come from Coder's own list.
func idsOf(keys []Key) []uuid.UUID {
	out := make([]uuid.UUID, 0, len(keys))
	for _, k := range keys {
		out = append(out, uuid.MustParse(k.ID))
	}
	return out
}
