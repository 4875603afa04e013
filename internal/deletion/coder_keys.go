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
	"time"

	"github.com/coder/coder/v2/codersdk"
	"github.com/google/uuid"

	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
)

// A KeyClaim names the keys one owner may have in Coder: by id (its external
// name, its records' ids) and by UID-derived name. A key's name proves
// ownership on its own because it embeds the owner's UID, so a record whose
// id went stale still finds the key a later create made under the same name.
type KeyClaim struct {
	IDs []string
	// Name reports whether a key name is one of the owner's derived names.
	Name func(string) bool
	// NotBefore, when set, is the earliest time, by our clock, a key of
	// the claim can have been created: a record written before its create
	// cannot name a key Coder made earlier, whatever id or name it carries.
	// It meets a key's creation time only on Coder's clock (see notBefore).
	NotBefore time.Time
}

// Names reports whether the claim names k, by id or by name.
func (c KeyClaim) Names(k codersdk.AIGatewayKey) bool {
	if c.Name != nil && c.Name(k.Name) {
		return true
	}
	id := k.ID.String()
	for _, want := range c.IDs {
		if want != "" && want == id {
			return true
		}
	}
	return false
}

// NameIs is a KeyClaim.Name that matches one name.
func NameIs(name string) func(string) bool {
	return func(n string) bool { return name != "" && n == name }
}

// OwnedKeys returns the keys of list the claim names, skipping those another
// resource holds.
func OwnedKeys(list []codersdk.AIGatewayKey, c KeyClaim, held Held) []codersdk.AIGatewayKey {
	var out []codersdk.AIGatewayKey
	for _, k := range list {
		if c.Names(k) && !held.has(k.ID.String()) {
			out = append(out, k)
		}
	}
	return out
}

// DeleteKeys asks Coder to delete every key of ids; one already gone is
// fine. It tries them all and returns the first failure. Absence is
// verified by the caller's next list, never assumed from the answer.
func DeleteKeys(ctx context.Context, cl *coder.Client, ids ...uuid.UUID) error {
	var first error
	for _, id := range ids {
		if err := cl.DeleteKey(ctx, id); err != nil && !coder.IsNotFound(err) && first == nil {
			first = err
		}
	}
	return first
}

// FindKeys lists the keys once and returns, per claim, the ids of the keys
// it names that may be deleted, and per claim its failure: the list's, or
// a key the claim names that Coder dated before the claim's NotBefore,
// which is not the claim's to delete and not absent either. Keys another
// resource holds are not the claim's anymore. It only reads.
func FindKeys(ctx context.Context, cl *coder.Client, claims []KeyClaim, held Held) ([][]uuid.UUID, []error) {
	list, err := cl.ListKeys(ctx)
	if err != nil {
		return ListFailed(len(claims), err)
	}
	// The list's answer dates Coder's clock.
	return FindKeysIn(list, cl.Clock(), claims, held)
}

// ListFailed is what FindKeys finds for n claims when the list failed with
// err: nothing, and err for each.
func ListFailed(n int, err error) ([][]uuid.UUID, []error) {
	errs := make([]error, n)
	for i := range errs {
		errs[i] = err
	}
	return make([][]uuid.UUID, n), errs
}

// FindKeysIn is FindKeys on a list the caller read, with Coder's clock as
// of its answer.
func FindKeysIn(list []codersdk.AIGatewayKey, clock coder.Clock, claims []KeyClaim, held Held) ([][]uuid.UUID, []error) {
	ids, errs := make([][]uuid.UUID, len(claims)), make([]error, len(claims))
	for i, c := range claims {
		for _, k := range OwnedKeys(list, c, held) {
			if err := notBefore("key "+k.ID.String(), k.CreatedAt, c.NotBefore, clock); err != nil {
				errs[i] = cmp.Or(errs[i], err)
				continue
			}
			ids[i] = append(ids[i], k.ID)
		}
	}
	return ids, errs
}

// SweepKeys deletes the keys of every claim and verifies their absence with
// one list before and one after all the deletes, however many claims there
// are (the first alone when it shows none to delete). It returns an error
// per claim, nil for a verified absence. Keys another resource
// holds are left alone and not the claim's anymore. A key the claim names
// that Coder dated before the claim's NotBefore is not deleted, and not
// absent either: its claim fails.
func SweepKeys(ctx context.Context, cl *coder.Client, claims []KeyClaim, held Held) []error {
	ids, errs := FindKeys(ctx, cl, claims, held)
	deleted := false
	for i := range claims {
		if err := DeleteKeys(ctx, cl, ids[i]...); err != nil {
			errs[i] = cmp.Or(errs[i], err)
		}
		deleted = deleted || len(ids[i]) > 0
	}
	if !deleted {
		// Nothing was asked of Coder since the list, which verified the
		// absence of every key it lacks.
		return errs
	}
	left, after := FindKeys(ctx, cl, claims, held)
	for i := range claims {
		switch {
		case errs[i] != nil:
		case after[i] != nil:
			errs[i] = after[i]
		case len(left[i]) > 0:
			errs[i] = ErrStillPresent
		}
	}
	return errs
}
