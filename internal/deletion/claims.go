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

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/crossplane-contrib/provider-coder/apis"
	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
)

// Kinds a record can name.
const (
	KindKey          = "AIGatewayKey"
	KindProvider     = "AIProvider"
	KindGroupBudget  = "GroupAIBudget"
	KindUserOverride = "UserAIBudgetOverride"
)

// BudgetClaimOf is what a group budget or an override record names: the
// group's budget, or the user's override, while Coder shows the updated_at of the provider's last PUT, or, when
// that PUT's answer was lost, a change within its window.
func BudgetClaimOf(rec *clusterv1alpha1.CleanupRecord) BudgetClaim {
	c := BudgetClaim{ID: rec.Status.ExternalID, Override: rec.Spec.Kind == KindUserOverride, UpdatedAt: rec.Status.CoderUpdatedAt}
	if t := rec.Status.CreateAttemptedAt; t != nil {
		c.Attempt = t.Time
	}
	return c
}

// clockSkew is how far the API server's clock, which dates a
// record, may run ahead of the provider's, whose instants coderobj places
// on Coder's clock through the answer's Date before they meet Coder's
// timestamps. Coder's own clock may be anywhere: it is never compared with
// ours.
const clockSkew = time.Minute

// NotBefore is the earliest time, by our clock, Coder can have created
// what rec names: a record of a create (it names the Coder name) was
// written before the create, and the API server set its creation time,
// which nobody editing the record can change. A record edited to name an
// older object, or written by hand, deletes nothing made before it, and is
// not settled by it either. An import's record (no Coder name) was written
// after its object existed: zero.
func NotBefore(rec *clusterv1alpha1.CleanupRecord) time.Time {
	if rec.Status.CoderName == "" {
		return time.Time{}
	}
	return rec.CreationTimestamp.Add(-clockSkew)
}

// keyClaimOf is what a key record names: the key's id once known, and its
// UID-derived name, which finds the key even when the id went stale.
func keyClaimOf(rec *clusterv1alpha1.CleanupRecord) KeyClaim {
	return KeyClaim{IDs: []string{rec.Status.ExternalID}, Name: nameIs(rec.Status.CoderName), NotBefore: NotBefore(rec)}
}

// errFmtOnlyCreatorFinds is the error of a provider record without an id,
// swept by a ProviderConfig other than its creator.
const errFmtOnlyCreatorFinds = "the provider this record names has no recorded id, only the name its creator chose, and only the ProviderConfig that made it may find it by name: the record is kept until %s is Ready again; if it was deleted, make it again there (same kind, namespace, name and URL)"

// providerClaimOf is what a provider record names: its id once known, and its
// name, which counts only for a provider Coder created within the window of
// the record's last create attempt, and only through the ProviderConfig
// that made it (byName). A provider the record knows by that name only
// cannot be found through another ProviderConfig, so its absence cannot be
// verified there: the error says so, and the record waits for its creator.
func providerClaimOf(rec *clusterv1alpha1.CleanupRecord, byName bool) (providerClaim, error) {
	c := providerClaim{ID: rec.Status.ExternalID, Name: rec.Status.CoderName, NotBefore: NotBefore(rec)}
	if t := rec.Status.CreateAttemptedAt; t != nil && byName {
		c.Attempt = t.Time
	}
	if c.ID == "" && !byName && rec.Status.CreateAttemptedAt != nil {
		return c, errors.Errorf(errFmtOnlyCreatorFinds, originOf(rec))
	}
	return c, nil
}

// OwnedByOthers reports the Coder objects another live managed resource
// holds in the Coder at now (see liveOwners), read through the cache one id
// at a time. The
// second result is the first failure to find out; an object whose holders
// could not be read counts as held meanwhile, so nothing is deleted on a
// guess, and the failure fails the verification.
func (r *Store) OwnedByOthers(ctx context.Context, mg resource.Managed, now Origin) (Owned, func() error) {
	var first error
	self := string(mg.GetUID())
	owned := func(id string) bool {
		recs, live, _, err := r.naming(ctx, id, apis.ManagedKinds())
		if err != nil {
			if first == nil {
				first = err
			}
			return true
		}
		return liveOwnersOf(recs, live, now).Except(self)(id)
	}
	return owned, func() error { return first }
}
