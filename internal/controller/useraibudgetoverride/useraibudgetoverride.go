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

// Package useraibudgetoverride is the one external client for
// UserAIBudgetOverrides, both scopes. The external name is the user's id.
// An override is a singleton in Coder that nobody names, so this resource
// owns it exactly while Coder shows the updated_at its own last PUT was
// answered with, which its cleanup record holds (budgets.Decide). It must
// not write over, or delete, an override it cannot prove its own.
package useraibudgetoverride

import (
	"context"

	"github.com/coder/coder/v2/codersdk"
	"github.com/google/uuid"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
	"github.com/crossplane-contrib/provider-coder/internal/controller/groupaibudget"
	"github.com/crossplane-contrib/provider-coder/internal/controller/managedkind"
	"github.com/crossplane-contrib/provider-coder/internal/deletion"
	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
	"github.com/crossplane-contrib/provider-coder/internal/spendwarning"
)

// Reasons of the Ready condition and of events; the licence, permission,
// group and changed-in-Coder reasons are GroupAIBudget's.
const (
	// ReasonOverrideExists: the user has an override in Coder that this
	// resource did not write; it is not written over.
	ReasonOverrideExists xpv2.ConditionReason = "OverrideExists"
	// ReasonUserNotFound: the user the spec names is not in Coder.
	ReasonUserNotFound xpv2.ConditionReason = "UserNotFound"
	// ReasonUserNotGroupMember: Coder refused the override because the user
	// is not a member of the group (status.atProvider.member is false).
	ReasonUserNotGroupMember xpv2.ConditionReason = "UserNotGroupMember"
)

const (
	errGetOverride  = "cannot get the user's AI budget override"
	errPutOverride  = "cannot set the user's AI budget override"
	errGetUser      = "cannot find the user in Coder"
	errGetGroup     = "cannot find the group in Coder"
	errRecordPut    = "cannot record Coder's answer to the override's PUT"
	errNoLimit      = "spec.forProvider.spendLimitMicros is required to write the override"
	errExternalName = "the external name is not a Coder user id"
	errFmtExists    = "user %s already has an AI budget override in Coder (limit %d micros in group %s, updated %s by Coder's clock) that this resource did not set; it is not written over. To manage it, set the external name (crossplane.io/external-name) to the user id %s, or import it read-only with spec.managementPolicies: [\"Observe\"]"
	errFmtUserGone  = "user %q is not in Coder"
	errFmtNotMember = "user %s is not a member of group %s, and Coder overrides a user's budget only within a group of theirs: add the user to the group in Coder, or name one of the user's groups"
)

// A Resource is a UserAIBudgetOverride of either scope.
type Resource interface {
	resource.Managed
	OverrideParameters() *common.UserAIBudgetOverrideParameters
	OverrideObservation() *common.UserAIBudgetOverrideObservation
	StatusConditions() *xpv2.ConditionedStatus
}

// Setup adds a controller for the UserAIBudgetOverride kind gvk.
func Setup(mgr ctrl.Manager, gvk schema.GroupVersionKind, o managedkind.Options) error {
	return managedkind.Setup(mgr, gvk, o, managedkind.Kind[Resource]{
		// An override has no name in Coder: its record names the user.
		CoderName: func(Resource) string { return "" },
		Gone:      func(n types.NamespacedName) { spendwarning.Forget(gvk.Kind, n.Namespace, n.Name) },
		External: func(s providerconfig.Session, _ logging.Logger, record event.Recorder) deletion.Live[Resource] {
			return &external{coder: s.Client, records: o.Records, kind: gvk.Kind, origin: managedkind.OriginOf(s), record: record}
		},
	})
}

// external talks to Coder for one UserAIBudgetOverride during one
// reconcile.
type external struct {
	coder   *coder.Client
	records *deletion.Store
	kind    string
	origin  deletion.Origin
	record  event.Recorder

	// userID and groupID are what Observe resolved, for Create and Update
	// in the same reconcile; groupID is empty for a deleting resource.
	userID, groupID string
}

func (e *external) Observe(ctx context.Context, r Resource) (managed.ExternalObservation, error) {
	id, err := e.user(ctx, r)
	if err != nil {
		return managed.ExternalObservation{}, err
	}
	e.userID = id
	got, present, err := deletion.UserOverride(ctx, e.coder, id)
	if err != nil {
		return managed.ExternalObservation{}, groupaibudget.Refused(r, errors.Wrap(err, errGetOverride))
	}
	if e.groupID, err = e.group(ctx, r); err != nil {
		return managed.ExternalObservation{}, err
	}
	l, err := e.look(ctx, r, got, present)
	if err != nil {
		return managed.ExternalObservation{}, err
	}
	v := deletion.Decide(l)
	at := deletion.FormatUpdatedAt(got.UpdatedAt)
	switch {
	case v.Refuse:
		err := errors.Errorf(errFmtExists, id, got.SpendLimitMicros, got.GroupID, at, id)
		r.SetConditions(groupaibudget.Unavailable(ReasonOverrideExists, err.Error()))
		return managed.ExternalObservation{}, err
	case v.Adopt:
		if err := e.records.EnsureAdoptedBudget(ctx, r, e.kind, e.origin, id, at, got.SpendLimitMicros, got.GroupID.String()); err != nil {
			return managed.ExternalObservation{}, err
		}
	}
	if v.Exists && present {
		e.observe(ctx, r, got)
		r.SetConditions(xpv2.Available())
		e.warn(r)
	} else {
		spendwarning.Forget(e.kind, r.GetNamespace(), r.GetName())
	}
	return managed.ExternalObservation{ResourceExists: v.Exists, ResourceUpToDate: v.UpToDate}, nil
}

// look gathers what budgets.Decide needs: the override Coder holds and what
// this resource's record says it wrote there.
func (e *external) look(ctx context.Context, r Resource, got codersdk.UserAIBudgetOverride, present bool) (deletion.Look, error) {
	p := deletion.Policies(r)
	want := r.OverrideParameters().SpendLimitMicros
	l := deletion.Look{
		Named: meta.GetExternalName(r) != "", Present: present,
		Matches:  want != nil && *want == got.SpendLimitMicros && e.groupID == got.GroupID.String(),
		MayWrite: p.ShouldUpdate() || p.ShouldDelete(), ObserveOnly: !p.ShouldCreate() && !p.ShouldUpdate() && !p.ShouldDelete(),
	}
	var err error
	if l.Recorded, l.Ours, err = e.ours(ctx, r, got, present, e.records.Of); err != nil || l.Ours || !l.Recorded {
		return l, err
	}
	// The cache may not show the updated_at of the last PUT yet.
	l.Recorded, l.Ours, err = e.ours(ctx, r, got, present, e.records.Fresh)
	return l, err
}

// ours reads the resource's records through read and reports whether one
// names the user with a PUT's answer (recorded), and whether the override
// Coder holds is that PUT's (ours).
func (e *external) ours(ctx context.Context, r Resource, got codersdk.UserAIBudgetOverride, present bool,
	read func(context.Context, resource.Managed) (deletion.Set, error)) (recorded, ours bool, err error) {
	recs, err := read(ctx, r)
	if err != nil {
		return false, false, err
	}
	claim, ok := recs.BudgetClaim(e.kind, e.userID)
	if ok && present {
		if ours, err = deletion.BudgetIsClaims(claim, got.UpdatedAt, e.coder.Timeout(), e.coder.Clock()); err != nil {
			return false, false, errors.Wrap(err, errGetOverride)
		}
	}
	return ok && claim.UpdatedAt != "", ours, nil
}

// user is the id of the user: the external name, or, before the first
// write, the user the spec names.
func (e *external) user(ctx context.Context, r Resource) (string, error) {
	if id := meta.GetExternalName(r); id != "" {
		if _, err := uuid.Parse(id); err != nil {
			return "", errors.New(errExternalName)
		}
		return id, nil
	}
	ident := r.OverrideParameters().User
	if _, err := uuid.Parse(ident); err == nil {
		return ident, nil
	}
	u, err := e.coder.User(ctx, ident)
	if coder.IsNotFound(err) {
		err = errors.Errorf(errFmtUserGone, ident)
		r.SetConditions(groupaibudget.Unavailable(ReasonUserNotFound, err.Error()))
		return "", err
	}
	if err != nil {
		return "", groupaibudget.Refused(r, errors.Wrap(err, errGetUser))
	}
	return u.ID.String(), nil
}

// group is the id of the group the spec attributes the user's spend to.
func (e *external) group(ctx context.Context, r Resource) (string, error) {
	p := r.OverrideParameters()
	return groupaibudget.GroupOf(ctx, e.coder, r, p.GroupID, p.GroupName, p.Organization)
}

// observe writes Coder's override and the user's spend into the status.
// Coder drops an override when its user leaves the group, so one that
// exists is of a member.
func (e *external) observe(ctx context.Context, r Resource, got codersdk.UserAIBudgetOverride) {
	o := r.OverrideObservation()
	o.UserID, o.GroupID, o.Member = got.UserID.String(), got.GroupID.String(), true
	o.SpendLimitMicros = ptr.To(got.SpendLimitMicros)
	o.UpdatedAt = groupaibudget.TimeOf(got.UpdatedAt)
	s, err := e.coder.UserAISpend(ctx, got.UserID)
	if err != nil {
		return
	}
	o.CurrentSpendMicros = s.CurrentSpendMicros
	o.PeriodStart, o.PeriodEnd = groupaibudget.TimeOf(s.PeriodStart), groupaibudget.TimeOf(s.PeriodEnd)
}

// warn decides the spend warning from the spend observe wrote into the
// status, against the override's limit, and applies it.
func (e *external) warn(r Resource) {
	o := r.OverrideObservation()
	d := spendwarning.Decide(spendwarning.Spend{
		WarnAt: r.OverrideParameters().WarnAt, SpendMicros: o.CurrentSpendMicros, LimitMicros: o.SpendLimitMicros,
		Of: "the user's limit", PeriodStart: o.PeriodStart, PeriodEnd: o.PeriodEnd, Warned: o.WarnedPeriodStart,
	})
	spendwarning.Apply(r, e.kind, &o.AISpendWarningStatus, e.record, d)
}
