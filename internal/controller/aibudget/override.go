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

package aibudget

import (
	"context"

	"github.com/google/uuid"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
	"github.com/crossplane-contrib/provider-coder/internal/controller/managedkind"
	"github.com/crossplane-contrib/provider-coder/internal/deletion"
	"github.com/crossplane-contrib/provider-coder/internal/spendwarning"
)

const (
	errUserID         = "the external name is not a Coder user id"
	errGetUser        = "cannot find the user in Coder"
	errFmtOverrideSet = "user %s already has an AI budget override in Coder (limit %d micros in group %s, updated %s by Coder's clock) that this resource did not set; it is not written over. To manage it, set the external name (crossplane.io/external-name) to the user id %s, or import it read-only with spec.managementPolicies: [\"Observe\"]"
	errFmtUserGone    = "user %q is not in Coder"
	errFmtNotMember   = "user %s is not a member of group %s, and Coder overrides a user's budget only within a group of theirs: add the user to the group in Coder, or name one of the user's groups"
)

// An Override is a UserAIBudgetOverride of either scope.
type Override interface {
	Resource
	OverrideParameters() *common.UserAIBudgetOverrideParameters
	OverrideObservation() *common.UserAIBudgetOverrideObservation
}

// SetupUserAIBudgetOverride adds a controller for the UserAIBudgetOverride
// kind gvk.
func SetupUserAIBudgetOverride(mgr ctrl.Manager, gvk schema.GroupVersionKind, o managedkind.Options) error {
	return setup[Override](mgr, gvk, o, userOverride{})
}

// userOverride is a user's override within one group: the external name is
// the user's id, and Coder drops the override when the user leaves the
// group.
type userOverride struct{}

func (userOverride) what() string { return "user's AI budget override" }

func (userOverride) limit(r Override) *int64 { return r.OverrideParameters().SpendLimitMicros }

func (userOverride) subject(ctx context.Context, c *coder.Client, r Override) (string, error) {
	if id, err := named(r, errUserID); id != "" || err != nil {
		return id, err
	}
	ident := r.OverrideParameters().User
	if _, err := uuid.Parse(ident); err == nil {
		return ident, nil
	}
	u, err := c.User(ctx, ident)
	if coder.IsNotFound(err) {
		err = errors.Errorf(errFmtUserGone, ident)
		r.SetConditions(unavailable(ReasonUserNotFound, err.Error()))
		return "", err
	}
	if err != nil {
		return "", refused(r, errors.Wrap(err, errGetUser))
	}
	return u.ID.String(), nil
}

// group is the group the spec attributes the user's spend to.
func (userOverride) group(ctx context.Context, c *coder.Client, r Override) (string, error) {
	p := r.OverrideParameters()
	return groupOf(ctx, c, r, p.GroupID, p.GroupName, p.Organization)
}

func (userOverride) get(ctx context.Context, c *coder.Client, id string) (row, bool, error) {
	got, found, err := deletion.UserOverride(ctx, c, id)
	return row{subject: id, limit: got.SpendLimitMicros, updatedAt: got.UpdatedAt, group: groupText(got.GroupID)}, found, err
}

// put sends the spec's limit and group. A user outside the group is
// refused by Coder: the status says so.
func (u userOverride) put(ctx context.Context, c *coder.Client, r Override, id, group string, limit int64) (row, error) {
	user, err := parseID(id, errUserID)
	if err != nil {
		return row{}, err
	}
	gid, err := uuid.Parse(group)
	if err != nil {
		return row{}, errors.Wrap(err, errGetGroup)
	}
	got, err := c.UpsertUserAIBudgetOverride(ctx, user, gid, limit)
	if coder.IsNotGroupMember(err) {
		o := r.OverrideObservation()
		o.UserID, o.Member = id, false
		err := errors.Errorf(errFmtNotMember, id, group)
		r.SetConditions(unavailable(ReasonUserNotGroupMember, err.Error()))
		return row{}, err
	}
	if err != nil {
		return row{}, refused(r, errors.Wrapf(err, "cannot set the %s", u.what()))
	}
	return row{subject: id, limit: got.SpendLimitMicros, updatedAt: got.UpdatedAt, group: got.GroupID.String()}, nil
}

func (userOverride) taken(r Override, got row) error {
	err := errors.Errorf(errFmtOverrideSet, got.subject, got.limit, got.group, deletion.FormatUpdatedAt(got.updatedAt), got.subject)
	r.SetConditions(unavailable(ReasonOverrideExists, err.Error()))
	return err
}

// observe writes the override and the user's spend; an override that
// exists is of a member, since Coder drops it when its user leaves.
func (userOverride) observe(ctx context.Context, c *coder.Client, r Override, got row) {
	o := r.OverrideObservation()
	o.UserID, o.GroupID, o.Member = got.subject, got.group, true
	o.SpendLimitMicros = ptr.To(got.limit)
	o.UpdatedAt = timeOf(got.updatedAt)
	s, err := c.UserAISpend(ctx, uuid.MustParse(got.subject))
	if err != nil {
		return
	}
	o.CurrentSpendMicros = s.CurrentSpendMicros
	o.PeriodStart, o.PeriodEnd = timeOf(s.PeriodStart), timeOf(s.PeriodEnd)
}

// spend counts the user's spend against the override's limit.
func (userOverride) spend(r Override) (spendwarning.Spend, *common.AISpendWarningStatus) {
	o := r.OverrideObservation()
	return spendwarning.Spend{
		WarnAt: r.OverrideParameters().WarnAt, SpendMicros: o.CurrentSpendMicros, LimitMicros: o.SpendLimitMicros,
		Of: "the user's limit", PeriodStart: o.PeriodStart, PeriodEnd: o.PeriodEnd, Warned: o.WarnedPeriodStart,
	}, &o.AISpendWarningStatus
}

// groupText is a group id as rows hold it: "" for none, as a budget's.
func groupText(g uuid.UUID) string {
	if g == uuid.Nil {
		return ""
	}
	return g.String()
}
