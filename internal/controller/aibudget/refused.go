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
	"time"

	"github.com/coder/coder/v2/codersdk"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
	"github.com/crossplane-contrib/provider-coder/internal/deletion"
)

// Reasons of the Ready condition and of events.
const (
	// ReasonBudgetExists: the group has a budget in Coder that this
	// resource did not write; it is not written over.
	ReasonBudgetExists xpv2.ConditionReason = "BudgetExists"
	// ReasonOverrideExists: the user has an override in Coder that this
	// resource did not write; it is not written over.
	ReasonOverrideExists xpv2.ConditionReason = "OverrideExists"
	// ReasonNotLicensed: Coder refused with 403 because its licence lacks
	// what budgets need.
	ReasonNotLicensed xpv2.ConditionReason = "NotLicensed"
	// ReasonForbidden: Coder refused the token's user with 403.
	ReasonForbidden xpv2.ConditionReason = "Forbidden"
	// ReasonGroupNotFound: the group the spec names is not in Coder.
	ReasonGroupNotFound xpv2.ConditionReason = "GroupNotFound"
	// ReasonUserNotFound: the user the spec names is not in Coder.
	ReasonUserNotFound xpv2.ConditionReason = "UserNotFound"
	// ReasonUserNotGroupMember: Coder refused the override because the user
	// is not a member of the group (status.atProvider.member is false).
	ReasonUserNotGroupMember xpv2.ConditionReason = "UserNotGroupMember"
	// ReasonNotVisible: Coder answers 404 for the row and for its group or
	// user, which it also answers when the token may not read it; the row
	// is not taken for gone (deletion.RowFound).
	ReasonNotVisible xpv2.ConditionReason = "NotVisibleToToken"
)

const (
	errGetGroup     = "cannot find the group in Coder"
	errFmtGroupGone = "group %q is not in Coder's organization %q"
)

// groupOf is the id of the group a spec names: groupID, or the group of
// that name in the organization (Coder's default one when empty). A group
// Coder does not have, or a refusal, is also said in r's Ready condition.
func groupOf(ctx context.Context, c *coder.Client, r Resource, groupID, groupName, organization *string) (string, error) {
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
		r.SetConditions(unavailable(ReasonGroupNotFound, err.Error()))
		return "", err
	}
	if err != nil {
		return "", refused(r, errors.Wrap(err, errGetGroup))
	}
	return g.ID.String(), nil
}

// refused notes Coder's 403 in r's Ready condition, with the licence or
// the permission it lacks, or a 404 that may mean the token cannot see the
// group or user, and returns err.
func refused(r Resource, err error) error {
	var unseen *deletion.UnseenError
	if errors.As(err, &unseen) {
		r.SetConditions(unavailable(ReasonNotVisible, unseen.Error()))
		return err
	}
	switch cause := coder.ForbiddenCause(err); cause {
	case "":
	case coder.CauseGroupsNotLicensed, coder.CauseNotLicensed:
		r.SetConditions(unavailable(ReasonNotLicensed, cause))
	default:
		r.SetConditions(unavailable(ReasonForbidden, cause))
	}
	return err
}

// timeOf is a time Coder answered as status holds it: to the second, nil
// for none.
func timeOf(t time.Time) *metav1.Time {
	if t.IsZero() {
		return nil
	}
	mt := metav1.NewTime(t.UTC().Truncate(time.Second))
	return &mt
}

// unavailable is the Ready condition of a row Coder does not let the
// resource write, with why.
func unavailable(reason xpv2.ConditionReason, msg string) xpv2.Condition {
	c := xpv2.Unavailable()
	c.Reason, c.Message = reason, msg
	return c
}
