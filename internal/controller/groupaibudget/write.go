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

package groupaibudget

import (
	"context"

	"github.com/google/uuid"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/crossplane-contrib/provider-coder/internal/deletion"
)

// Create writes the budget of a group that has none. The pass wrote the
// resource's cleanup record before; the record names the group before the
// PUT, and a resource goes on only while no other's record names the group
// (records.BudgetOwner): of two racing, at most one writes.
func (e *external) Create(ctx context.Context, b Resource) (managed.ExternalCreation, error) {
	id := e.groupID
	if id == "" {
		var err error
		if id, err = e.group(ctx, b); err != nil {
			return managed.ExternalCreation{}, err
		}
	}
	if err := e.records.NameGroup(ctx, b, e.kind, e.origin, id); err != nil {
		return managed.ExternalCreation{}, err
	}
	claims, err := e.records.ActiveOwners(ctx, id, e.origin)
	if err != nil {
		return managed.ExternalCreation{}, err
	}
	if owner, ok := deletion.BudgetOwner(string(b.GetUID()), claims); ok {
		// Nothing was sent to Coder: the record names nothing there.
		if err := e.records.DeleteBudgetRecord(ctx, b, e.kind, id); err != nil {
			return managed.ExternalCreation{}, err
		}
		err := deletion.ErrOwned(id, owner)
		b.SetConditions(xpv2.Unavailable().WithMessage(err.Error()))
		return managed.ExternalCreation{}, err
	}
	meta.SetExternalName(b, id)
	return managed.ExternalCreation{}, e.put(ctx, b, id)
}

// Update puts the spec's limit back: it changed, or someone wrote the
// budget in Coder since this resource's last PUT.
func (e *external) Update(ctx context.Context, b Resource) (managed.ExternalUpdate, error) {
	id := e.groupID
	if id == "" {
		id = meta.GetExternalName(b)
	}
	return managed.ExternalUpdate{}, e.put(ctx, b, id)
}

// put sends the spec's limit and records Coder's answer, whose updated_at
// is the proof that the budget is this resource's.
func (e *external) put(ctx context.Context, b Resource, id string) error {
	want := b.BudgetParameters().SpendLimitMicros
	if want == nil {
		return errors.New(errNoLimit)
	}
	gid, err := uuid.Parse(id)
	if err != nil {
		return errors.New(errExternalName)
	}
	got, err := e.coder.UpsertGroupAIBudget(ctx, gid, *want)
	if err != nil {
		return Refused(b, errors.Wrap(err, errPutBudget))
	}
	if err := e.records.SetCoderUpdatedAt(ctx, b, e.kind, id, deletion.FormatUpdatedAt(got.UpdatedAt), got.SpendLimitMicros, ""); err != nil {
		return errors.Wrap(err, errRecordPut)
	}
	e.observe(ctx, b, id, got)
	return nil
}

func (e *external) Disconnect(context.Context) error { return nil }
