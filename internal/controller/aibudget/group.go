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
	errGroupID      = "the external name is not a Coder group id"
	errFmtBudgetSet = "group %s already has an AI budget in Coder (limit %d micros, updated %s by Coder's clock) that this resource did not set; it is not written over. To manage it, set the external name (crossplane.io/external-name) to the group id %s, or import it read-only with spec.managementPolicies: [\"Observe\"]"
)

// A Budget is a GroupAIBudget of either scope.
type Budget interface {
	Resource
	BudgetParameters() *common.GroupAIBudgetParameters
	BudgetObservation() *common.GroupAIBudgetObservation
}

// SetupGroupAIBudget adds a controller for the GroupAIBudget kind gvk.
func SetupGroupAIBudget(mgr ctrl.Manager, gvk schema.GroupVersionKind, o managedkind.Options) error {
	return setup[Budget](mgr, gvk, o, groupBudget{})
}

// groupBudget is a group's budget: the external name is the group's id.
type groupBudget struct{}

func (groupBudget) what() string { return "group's AI budget" }

func (groupBudget) limit(b Budget) *int64 { return b.BudgetParameters().SpendLimitMicros }

func (groupBudget) subject(ctx context.Context, c *coder.Client, b Budget) (string, error) {
	if id, err := named(b, errGroupID); id != "" || err != nil {
		return id, err
	}
	p := b.BudgetParameters()
	return groupOf(ctx, c, b, p.GroupID, p.GroupName, p.Organization)
}

// group is "": the budget's subject is its group.
func (groupBudget) group(context.Context, *coder.Client, Budget) (string, error) { return "", nil }

func (groupBudget) get(ctx context.Context, c *coder.Client, id string) (row, bool, error) {
	got, found, err := deletion.GroupBudget(ctx, c, id)
	return row{subject: id, limit: got.SpendLimitMicros, updatedAt: got.UpdatedAt}, found, err
}

func (g groupBudget) put(ctx context.Context, c *coder.Client, b Budget, id, _ string, limit int64) (row, error) {
	gid, err := parseID(id, errGroupID)
	if err != nil {
		return row{}, err
	}
	got, err := c.UpsertGroupAIBudget(ctx, gid, limit)
	if err != nil {
		return row{}, refused(b, errors.Wrapf(err, "cannot set the %s", g.what()))
	}
	return row{subject: id, limit: got.SpendLimitMicros, updatedAt: got.UpdatedAt}, nil
}

func (groupBudget) taken(b Budget, got row) error {
	err := errors.Errorf(errFmtBudgetSet, got.subject, got.limit, deletion.FormatUpdatedAt(got.updatedAt), got.subject)
	b.SetConditions(unavailable(ReasonBudgetExists, err.Error()))
	return err
}

func (groupBudget) observe(ctx context.Context, c *coder.Client, b Budget, got row) {
	o := b.BudgetObservation()
	o.GroupID = got.subject
	o.SpendLimitMicros = ptr.To(got.limit)
	o.UpdatedAt = timeOf(got.updatedAt)
	s, err := c.GroupAISpend(ctx, uuid.MustParse(got.subject))
	if err != nil {
		return
	}
	o.CurrentSpendMicros = s.CurrentSpendMicros
	o.TotalSpendLimitMicros = nil
	if s.TotalSpendLimitMicros != nil {
		o.TotalSpendLimitMicros = ptr.To(*s.TotalSpendLimitMicros)
	}
	o.PeriodStart, o.PeriodEnd = timeOf(s.PeriodStart), timeOf(s.PeriodEnd)
}

// spend counts the group's spend against its combined limit: the spend is
// the group's, the limit per member.
func (groupBudget) spend(b Budget) (spendwarning.Spend, *common.AISpendWarningStatus) {
	o := b.BudgetObservation()
	return spendwarning.Spend{
		WarnAt: b.BudgetParameters().WarnAt, SpendMicros: o.CurrentSpendMicros, LimitMicros: o.TotalSpendLimitMicros,
		Of: "the group's combined limit", PeriodStart: o.PeriodStart, PeriodEnd: o.PeriodEnd, Warned: o.WarnedPeriodStart,
	}, &o.AISpendWarningStatus
}
