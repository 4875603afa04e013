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

	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
	"github.com/crossplane-contrib/provider-coder/test/framework/fixture"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

func TestASweepDeletesABudgetOrOverrideOnlyWhileItsUpdatedAtIsTheRecords(t *testing.T) {
	const uid = "0b1c2d3e-0000-4000-8000-000000000002"
	cases := map[string]struct {
		reason       string
		kind         string
		writtenSince bool
		wantGone     bool
	}{
		"Budget":           {reason: "The group's budget is still the provider's: deleted.", kind: KindGroupBudget, wantGone: true},
		"BudgetSuperseded": {reason: "Someone set the budget since: left, the record removed.", kind: KindGroupBudget, writtenSince: true},
		"Override":         {reason: "The user's override is still the provider's: deleted.", kind: KindUserOverride, wantGone: true},
		"OverrideSuperseded": {
			reason: "Someone set the override since: left, the record removed.", kind: KindUserOverride, writtenSince: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			srv, cl := fixture.Coder(t)
			bi, err := cl.BuildInfo(ctx)
			if err != nil {
				t.Fatal(err)
			}
			id, updatedAt, present := budgetRow(t, srv, cl, tc.kind, tc.writtenSince)
			rec := keyRecord(uid, bi.DeploymentID, id, clusterv1alpha1.CleanupPhaseAbandoned, time.Now().Add(-time.Hour))
			rec.Name, rec.Spec.Kind, rec.Status.CoderUpdatedAt = Name(tc.kind, "x"), tc.kind, updatedAt
			kube := fixture.Kube(t, append(readyConfig(srv, "team-a", bi.DeploymentID), rec)...).Build()
			sw := NewSweeper()
			sw.Kube, sw.Reader, sw.Log = kube, kube, logging.NewNopLogger()
			sw.Clients, sw.Timeout, sw.Grace = coder.NewCache(4, time.Hour), 5*time.Second, time.Minute

			res, err := sw.Sweep(ctx)
			if err != nil {
				t.Fatalf("%s\nSweep: %v", tc.reason, err)
			}
			if want := (Result{Swept: 1}); res != want {
				t.Errorf("%s\nSweep result %+v, want %+v", tc.reason, res, want)
			}
			if gone := !present(); gone != tc.wantGone {
				t.Errorf("%s\nrow gone from Coder = %t, want %t", tc.reason, gone, tc.wantGone)
			}
			if err := kube.Get(ctx, client.ObjectKeyFromObject(rec), &clusterv1alpha1.CleanupRecord{}); !kerrors.IsNotFound(err) {
				t.Errorf("%s\nthe record is still there (%v), want it removed", tc.reason, err)
			}
		})
	}
}

// budgetRow writes, through cl, the row of kind a record names, and
// another write after it when writtenSince. It returns the row's key in
// Coder, the updated_at of the first write, and whether the row is there.
func budgetRow(t *testing.T, srv *fakecoder.Server, cl *coder.Client, kind string, writtenSince bool) (string, string, func() bool) {
	t.Helper()
	ctx := context.Background()
	g, err := srv.CreateGroup("team")
	if err != nil {
		t.Fatal(err)
	}
	if kind == KindGroupBudget {
		b, err := cl.UpsertGroupAIBudget(ctx, g.ID, 5)
		if err != nil {
			t.Fatal(err)
		}
		if writtenSince {
			srv.SetClockOffset(srv.ClockOffset() + time.Second)
			if _, err := cl.UpsertGroupAIBudget(ctx, g.ID, 6); err != nil {
				t.Fatal(err)
			}
		}
		return g.ID.String(), FormatUpdatedAt(b.UpdatedAt), func() bool { _, ok := srv.GroupBudgets()[g.ID]; return ok }
	}
	u, err := srv.CreateUser("alice")
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.AddGroupMember(g.ID, u.ID); err != nil {
		t.Fatal(err)
	}
	o, err := cl.UpsertUserAIBudgetOverride(ctx, u.ID, g.ID, 5)
	if err != nil {
		t.Fatal(err)
	}
	if writtenSince {
		srv.SetClockOffset(srv.ClockOffset() + time.Second)
		if _, err := cl.UpsertUserAIBudgetOverride(ctx, u.ID, g.ID, 6); err != nil {
			t.Fatal(err)
		}
	}
	return u.ID.String(), FormatUpdatedAt(o.UpdatedAt), func() bool { _, ok := srv.BudgetOverrides()[u.ID]; return ok }
}
