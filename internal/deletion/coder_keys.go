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

// nameIs is a KeyClaim.Name that matches one name.
func nameIs(name string) func(string) bool {
	return func(n string) bool { return name != "" && n == name }
}

// OwnedKeys returns the keys of list the claim names, skipping those another
// resource holds.
func OwnedKeys(list []codersdk.AIGatewayKey, c KeyClaim, owned Owned) []codersdk.AIGatewayKey {
	var out []codersdk.AIGatewayKey
	for _, k := range list {
		if c.Names(k) && !owned.has(k.ID.String()) {
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
