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

// Package groupaibudget is the one external client for GroupAIBudgets, both
// scopes. The external name is the group's id. A budget is a singleton in
// Coder that nobody names, so this resource owns it exactly while Coder
// shows the updated_at its own last PUT was answered with, which its
// cleanup record holds (budgets.Decide). It must not write over, or delete, a
// budget it cannot prove its own.
package groupaibudget

import (
	"context"
	"time"

	"github.com/coder/coder/v2/codersdk"
	"github.com/google/uuid"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
	"github.com/crossplane-contrib/provider-coder/internal/controller/managedkind"
	"github.com/crossplane-contrib/provider-coder/internal/deletion"
	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
	"github.com/crossplane-contrib/provider-coder/internal/spendwarning"
)

// Reasons of the Ready condition and of events.
const (
	// ReasonBudgetExists: the group has a budget in Coder that this
	// resource did not write; it is not written over.
	ReasonBudgetExists xpv2.ConditionReason = "BudgetExists"
	// ReasonNotLicensed: Coder refused with 403 because its licence lacks
	// what budgets need.
	ReasonNotLicensed xpv2.ConditionReason = "NotLicensed"
	// ReasonForbidden: Coder refused the token's user with 403.
	ReasonForbidden xpv2.ConditionReason = "Forbidden"
	// ReasonGroupNotFound: the group the spec names is not in Coder.
	ReasonGroupNotFound xpv2.ConditionReason = "GroupNotFound"
	// ReasonNotVisible: Coder answers 404 for the budget and for its group
	// (or user), which it also answers when the token may not read it; the
	// budget is not taken for gone (coderobj.RowFound).
	ReasonNotVisible xpv2.ConditionReason = "NotVisibleToToken"
)

const (
	errGetBudget     = "cannot get the group's AI budget"
	errPutBudget     = "cannot set the group's AI budget"
	errGetGroup      = "cannot find the group in Coder"
	errRecordPut     = "cannot record Coder's answer to the budget's PUT"
	errNoLimit       = "spec.forProvider.spendLimitMicros is required to write the budget"
	errExternalName  = "the external name is not a Coder group id"
	errFmtExists     = "group %s already has an AI budget in Coder (limit %d micros, updated %s by Coder's clock) that this resource did not set; it is not written over. To manage it, set the external name (crossplane.io/external-name) to the group id %s, or import it read-only with spec.managementPolicies: [\"Observe\"]"
	errFmtGroupGone  = "group %q is not in Coder's organization %q"
	errFmtNotLicense = "%s: %s"
)

// A Resource is a GroupAIBudget of either scope.
type Resource interface {
	resource.Managed
	BudgetParameters() *common.GroupAIBudgetParameters
	BudgetObservation() *common.GroupAIBudgetObservation
	StatusConditions() *xpv2.ConditionedStatus
}

// Setup adds a controller for the GroupAIBudget kind gvk to the manager.
func Setup(mgr ctrl.Manager, gvk schema.GroupVersionKind, o managedkind.Options) error {
	return managedkind.Setup(mgr, gvk, o, managedkind.Kind[Resource]{
		// A budget has no name in Coder: its record names the group.
		CoderName: func(Resource) string { return "" },
		Gone:      func(n types.NamespacedName) { spendwarning.Forget(gvk.Kind, n.Namespace, n.Name) },
		External: func(s providerconfig.Session, _ logging.Logger, record event.Recorder) deletion.Live[Resource] {
			return &external{coder: s.Client, records: o.Records, kind: gvk.Kind, origin: managedkind.OriginOf(s), record: record}
		},
	})
}

// external talks to Coder for one GroupAIBudget during one reconcile.
type external struct {
	coder   *coder.Client
	records *deletion.Store
	kind    string
	origin  deletion.Origin
	record  event.Recorder

	// groupID is the group Observe looked at, for Create, Update and
	// Delete in the same reconcile.
	groupID string
}

func (e *external) Observe(ctx context.Context, b Resource) (managed.ExternalObservation, error) {
	id, err := e.group(ctx, b)
	if err != nil {
		return managed.ExternalObservation{}, err
	}
	e.groupID = id
	got, present, err := deletion.GroupBudget(ctx, e.coder, id)
	if err != nil {
		return managed.ExternalObservation{}, Refused(b, errors.Wrap(err, errGetBudget))
	}
	l, err := e.look(ctx, b, id, got, present)
	if err != nil {
		return managed.ExternalObservation{}, err
	}
	v := deletion.Decide(l)
	switch {
	case v.Refuse:
		err := errors.Errorf(errFmtExists, id, got.SpendLimitMicros, deletion.FormatUpdatedAt(got.UpdatedAt), id)
		b.SetConditions(Unavailable(ReasonBudgetExists, err.Error()))
		return managed.ExternalObservation{}, err
	case v.Adopt:
		err := e.records.EnsureAdoptedBudget(ctx, b, e.kind, e.origin, id, deletion.FormatUpdatedAt(got.UpdatedAt), got.SpendLimitMicros, "")
		if err != nil {
			return managed.ExternalObservation{}, err
		}
	}
	if v.Exists && present {
		e.observe(ctx, b, id, got)
		b.SetConditions(xpv2.Available())
		e.warn(b)
	} else {
		spendwarning.Forget(e.kind, b.GetNamespace(), b.GetName())
	}
	return managed.ExternalObservation{ResourceExists: v.Exists, ResourceUpToDate: v.UpToDate}, nil
}

// look gathers what Decide needs: the budget Coder holds for group id and
// what this resource's record says it wrote there.
func (e *external) look(ctx context.Context, b Resource, id string, got codersdk.GroupAIBudget, present bool) (deletion.Look, error) {
	p := deletion.Policies(b)
	want := b.BudgetParameters().SpendLimitMicros
	l := deletion.Look{
		Named: meta.GetExternalName(b) != "", Present: present,
		Matches: want != nil && *want == got.SpendLimitMicros, MayWrite: p.ShouldUpdate() || p.ShouldDelete(),
		ObserveOnly: !p.ShouldCreate() && !p.ShouldUpdate() && !p.ShouldDelete(),
	}
	var err error
	if l.Recorded, l.Ours, err = e.ours(ctx, b, id, got, present, e.records.Of); err != nil || l.Ours || !l.Recorded {
		return l, err
	}
	// The cache may not show the updated_at of the last PUT yet: a budget
	// is someone else's change only by the record as the API server has it.
	l.Recorded, l.Ours, err = e.ours(ctx, b, id, got, present, e.records.Fresh)
	return l, err
}

// ours reads the resource's records through read and reports whether one
// names group id with a PUT's answer (recorded), and whether the budget
// Coder holds is that PUT's (ours).
func (e *external) ours(ctx context.Context, b Resource, id string, got codersdk.GroupAIBudget, present bool,
	read func(context.Context, resource.Managed) (deletion.Set, error)) (recorded, ours bool, err error) {
	recs, err := read(ctx, b)
	if err != nil {
		return false, false, err
	}
	claim, ok := recs.BudgetClaim(e.kind, id)
	if ok && present {
		if ours, err = deletion.BudgetIsClaims(claim, got.UpdatedAt, e.coder.Timeout(), e.coder.Clock()); err != nil {
			return false, false, errors.Wrap(err, errGetBudget)
		}
	}
	return ok && claim.UpdatedAt != "", ours, nil
}

// group is the id of the group the resource budgets: its external name,
// or, before its first write, the group its spec names.
func (e *external) group(ctx context.Context, b Resource) (string, error) {
	if id := meta.GetExternalName(b); id != "" {
		if _, err := uuid.Parse(id); err != nil {
			return "", errors.New(errExternalName)
		}
		return id, nil
	}
	p := b.BudgetParameters()
	return GroupOf(ctx, e.coder, b, p.GroupID, p.GroupName, p.Organization)
}

// GroupOf is the id of the group a spec names: groupID, or the group of
// that name in the organization (Coder's default one when empty). A group
// Coder does not have, or a refusal, is also said in mg's Ready condition.
// UserAIBudgetOverride names its group the same way.
func GroupOf(ctx context.Context, c *coder.Client, mg Conditioned, groupID, groupName, organization *string) (string, error) {
	if groupID != nil {
		return *groupID, nil
	}
	name, org := ptr.Deref(groupName, ""), ptr.Deref(organization, "")
	g, err := c.GroupByName(ctx, org, name)
	if coder.IsNotFound(err) {
		if org == "" {
			org = codersdk.DefaultOrganization
		}
		err = errors.Errorf(errFmtGroupGone, name, org)
		mg.SetConditions(Unavailable(ReasonGroupNotFound, err.Error()))
		return "", err
	}
	if err != nil {
		return "", Refused(mg, errors.Wrap(err, errGetGroup))
	}
	return g.ID.String(), nil
}

// Conditioned is what GroupOf and Refused write their conditions to.
type Conditioned interface {
	SetConditions(c ...xpv2.Condition)
}

// Refused notes Coder's 403 in mg's Ready condition, with the licence or
// the permission it lacks, or a 404 that may mean the token cannot see the
// group or user, and returns err.
func Refused(mg Conditioned, err error) error {
	var unseen *deletion.UnseenError
	if errors.As(err, &unseen) {
		mg.SetConditions(Unavailable(ReasonNotVisible, unseen.Error()))
		return err
	}
	switch cause := coder.ForbiddenCause(err); cause {
	case "":
	case coder.CauseGroupsNotLicensed, coder.CauseNotLicensed:
		mg.SetConditions(Unavailable(ReasonNotLicensed, cause))
	default:
		mg.SetConditions(Unavailable(ReasonForbidden, cause))
	}
	return err
}

// observe writes Coder's budget and the group's spend into the status. The
// spend is for the eye: a failure to read it changes nothing else.
func (e *external) observe(ctx context.Context, b Resource, id string, got codersdk.GroupAIBudget) {
	o := b.BudgetObservation()
	o.GroupID = id
	o.SpendLimitMicros = ptr.To(got.SpendLimitMicros)
	o.UpdatedAt = TimeOf(got.UpdatedAt)
	s, err := e.coder.GroupAISpend(ctx, uuid.MustParse(id))
	if err != nil {
		return
	}
	o.CurrentSpendMicros = s.CurrentSpendMicros
	o.TotalSpendLimitMicros = nil
	if s.TotalSpendLimitMicros != nil {
		o.TotalSpendLimitMicros = ptr.To(*s.TotalSpendLimitMicros)
	}
	o.PeriodStart, o.PeriodEnd = TimeOf(s.PeriodStart), TimeOf(s.PeriodEnd)
}

// warn decides the spend warning from the spend observe wrote into the
// status, against the group's combined limit (the spend is the group's,
// the limit per member), and applies it.
func (e *external) warn(b Resource) {
	o := b.BudgetObservation()
	d := spendwarning.Decide(spendwarning.Spend{
		WarnAt: b.BudgetParameters().WarnAt, SpendMicros: o.CurrentSpendMicros, LimitMicros: o.TotalSpendLimitMicros,
		Of: "the group's combined limit", PeriodStart: o.PeriodStart, PeriodEnd: o.PeriodEnd, Warned: o.WarnedPeriodStart,
	})
	spendwarning.Apply(b, e.kind, &o.AISpendWarningStatus, e.record, d)
}

// TimeOf is a time Coder answered as status holds it: to the second, nil
// for none.
func TimeOf(t time.Time) *metav1.Time {
	if t.IsZero() {
		return nil
	}
	mt := metav1.NewTime(t.UTC().Truncate(time.Second))
	return &mt
}

// Unavailable is the Ready condition of a budget or override Coder does
// not let the resource write, with why.
func Unavailable(reason xpv2.ConditionReason, msg string) xpv2.Condition {
	c := xpv2.Unavailable()
	c.Reason, c.Message = reason, msg
	return c
}
