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

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
)

// sweptCoder is the Coder the records of these tests were made in and are
// swept through, by their own (legacy) deployment: their creator, which
// may find a provider by name.
var sweptCoder = Origin{DeploymentID: "swept"}

// rec is an Active record of kind naming id and, for a create's record,
// the Coder name (a key's UID-derived name, a provider's name), written at
// notBefore (its NotBefore; zero: an import's record, which bounds
// nothing) after a create sent at attempt (zero: none whose answer was
// lost).
func rec(kind, id, name string, notBefore, attempt time.Time) *clusterv1alpha1.CleanupRecord {
	r := &clusterv1alpha1.CleanupRecord{}
	r.Spec.Kind, r.Spec.DeploymentID = kind, sweptCoder.DeploymentID
	r.Status.Phase, r.Status.ExternalID, r.Status.CoderName = clusterv1alpha1.CleanupPhaseActive, id, name
	if !notBefore.IsZero() {
		r.CreationTimestamp = metav1.NewTime(notBefore.Add(clockSkew))
	} else if name != "" {
		// Written long before anything here: it bounds nothing.
		r.CreationTimestamp = metav1.NewTime(time.Now().Add(-time.Hour))
	}
	if !attempt.IsZero() {
		r.Status.CreateAttemptedAt = &metav1.Time{Time: attempt}
	}
	return r
}

// budgetRec is the record of a PUT of a group's budget, or a user's
// override, that Coder answered with updatedAt.
func budgetRec(id string, override bool, updatedAt string) *clusterv1alpha1.CleanupRecord {
	r := rec(KindGroupBudget, id, "", time.Time{}, time.Time{})
	if override {
		r.Spec.Kind = KindUserOverride
	}
	r.Status.CoderUpdatedAt = updatedAt
	return r
}

// sweep is the sweep of records of one kind through cl, as the sweeper's
// worker makes it: per record, nil for a verified absence.
func sweep(ctx context.Context, cl *coder.Client, owned Owned, recs ...*clusterv1alpha1.CleanupRecord) []found {
	k, _ := objectsOf(recs[0].Spec.Kind)
	return sweepObjects(ctx, look{cl: cl, now: sweptCoder, owned: owned}, k, recs)
}

// errsOf are the errors of what a sweep found.
func errsOf(fs []found) []error {
	out := make([]error, len(fs))
	for i, f := range fs {
		out[i] = f.err
	}
	return out
}
