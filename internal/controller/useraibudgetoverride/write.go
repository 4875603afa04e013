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

package useraibudgetoverride

import (
	"context"

	"github.com/google/uuid"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
	"github.com/crossplane-contrib/provider-coder/internal/controller/groupaibudget"
	"github.com/crossplane-contrib/provider-coder/internal/deletion"
)

// Create writes the override of a user who has none. The pass wrote the
// resource's cleanup record before; the record names the user before the
// PUT, and a resource goes on only while no other's record names the user
// (records.BudgetOwner): of two racing, at most one writes.
func (e *external) Create(ctx context.Context, r Resource) (managed.ExternalCreation, error) {
	if e.userID == "" || e.groupID == "" {
		return managed.ExternalCreation{}, errors.New(errNotObserved)
	}
	if err := e.records.NameGroup(ctx, r, e.kind, e.origin, e.userID); err != nil {
		return managed.ExternalCreation{}, err
	}
	claims, err := e.records.ActiveOwners(ctx, e.userID, e.origin)
	if err != nil {
		return managed.ExternalCreation{}, err
	}
	if owner, ok := deletion.BudgetOwner(string(r.GetUID()), claims); ok {
		// Nothing was sent to Coder: the record names nothing there.
		if err := e.records.DeleteBudgetRecord(ctx, r, e.kind, e.userID); err != nil {
			return managed.ExternalCreation{}, err
		}
		err := deletion.ErrOwned(e.userID, owner)
		r.SetConditions(xpv2.Unavailable().WithMessage(err.Error()))
		return managed.ExternalCreation{}, err
	}
	meta.SetExternalName(r, e.userID)
	return managed.ExternalCreation{}, e.put(ctx, r)
}

// Update puts the spec's limit and group back: they changed, or someone
// wrote the override in Coder since this resource's last PUT.
func (e *external) Update(ctx context.Context, r Resource) (managed.ExternalUpdate, error) {
	if e.userID == "" || e.groupID == "" {
		return managed.ExternalUpdate{}, errors.New(errNotObserved)
	}
	return managed.ExternalUpdate{}, e.put(ctx, r)
}

// errNotObserved is a write without the Observe of the same reconcile.
const errNotObserved = "cannot write an override that was not observed first"

// put sends the spec's limit and group, and records Coder's answer, whose
// updated_at is the proof that the override is this resource's. A user
// outside the group is refused by Coder: the status says so.
func (e *external) put(ctx context.Context, r Resource) error {
	want := r.OverrideParameters().SpendLimitMicros
	if want == nil {
		return errors.New(errNoLimit)
	}
	user, err := uuid.Parse(e.userID)
	if err != nil {
		return errors.New(errExternalName)
	}
	group, err := uuid.Parse(e.groupID)
	if err != nil {
		return errors.Wrap(err, errGetGroup)
	}
	got, err := e.coder.UpsertUserAIBudgetOverride(ctx, user, group, *want)
	if coder.IsNotGroupMember(err) {
		o := r.OverrideObservation()
		o.UserID, o.Member = e.userID, false
		err := errors.Errorf(errFmtNotMember, e.userID, e.groupID)
		r.SetConditions(groupaibudget.Unavailable(ReasonUserNotGroupMember, err.Error()))
		return err
	}
	if err != nil {
		return groupaibudget.Refused(r, errors.Wrap(err, errPutOverride))
	}
	if err := e.records.SetCoderUpdatedAt(ctx, r, e.kind, e.userID, deletion.FormatUpdatedAt(got.UpdatedAt), got.SpendLimitMicros, got.GroupID.String()); err != nil {
		return errors.Wrap(err, errRecordPut)
	}
	e.observe(ctx, r, got)
	return nil
}

func (e *external) Disconnect(context.Context) error { return nil }
