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
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
)

func TestBudgetOwnerLetsOnlyAnUncontestedRecordWrite(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a := Owner{UID: "a", Record: true, Created: t0}
	b := Owner{UID: "b", Record: true, Created: t0.Add(time.Second)}
	c := Owner{UID: "c", Record: true, Created: t0}
	live := Owner{UID: "l", Created: t0.Add(-time.Hour)}
	type want struct {
		owner Owner
		ok    bool
	}
	cases := map[string]struct {
		reason string
		self   string
		claims []Owner
		want   want
	}{
		"Alone": {reason: "A resource alone with its record writes.", self: "a", claims: []Owner{a}},
		"EarlierYieldsToo": {
			reason: "A record written first still yields: the other may have read before this one named the row, and written.",
			self:   "a", claims: []Owner{b, a}, want: want{b, true},
		},
		"LaterYields":   {reason: "A later record yields to the first.", self: "b", claims: []Owner{a, b}, want: want{a, true}},
		"NamesTheFirst": {reason: "Of several others, the first record written is named.", self: "b", claims: []Owner{b, c, a}, want: want{a, true}},
		"ExternalNameAloneCountsNot": {
			reason: "An external name a user wrote is no record, however old its resource.",
			self:   "a", claims: []Owner{live, a},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			owner, ok := BudgetOwner(tc.self, tc.claims)
			if diff := cmp.Diff(tc.want, want{owner, ok}, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("\n%s\nBudgetOwner(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestABudgetRecordNamesItsGroupAndUpdatedAt(t *testing.T) {
	attempt := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	r := &clusterv1alpha1.CleanupRecord{}
	r.Spec.Kind = KindGroupBudget
	r.Status = clusterv1alpha1.CleanupRecordStatus{Phase: clusterv1alpha1.CleanupPhaseActive, ExternalID: "g1", CoderUpdatedAt: "2026-01-01T00:00:01.5Z", SpendLimitMicros: ptr.To[int64](5), CreateAttemptedAt: &attempt}
	want := BudgetClaim{ID: "g1", UpdatedAt: "2026-01-01T00:00:01.5Z", Attempt: attempt.Time}
	if diff := cmp.Diff(want, BudgetClaimOf(r)); diff != "" {
		t.Errorf("BudgetClaimOf(...): -want, +got:\n%s", diff)
	}
	// A record that never named a group names nothing in Coder: no read.
	r.Status.ExternalID = ""
	if got := findBudgets(context.Background(), look{}, []*clusterv1alpha1.CleanupRecord{r}); len(got[0].ids) > 0 || got[0].err != nil {
		t.Errorf("findBudgets of a record that names no group = %+v, want nothing", got[0])
	}
}
