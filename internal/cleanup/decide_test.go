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

package cleanup

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
)

func TestBoundedPassReleasesWithoutDeleteUnlessAbsenceIsVerified(t *testing.T) {
	down := context.DeadlineExceeded
	unavailable := string(coder.ClassOf(down))
	cases := map[string]struct {
		reason string
		in     PassResult
		want   PassOutcome
	}{
		"NeverExisted": {
			reason: "a first look that finds nothing is a verified absence",
			in:     PassResult{MayHaveCreated: true},
			want:   PassOutcome{},
		},
		"Deleted": {
			reason: "a delete confirmed by a second look is a normal release",
			in:     PassResult{Existed: true, MayHaveCreated: true},
			want:   PassOutcome{},
		},
		"CoderDownWithID": {
			reason: "a failed look is not an absence",
			in:     PassResult{ObserveErr: down, MayHaveCreated: true},
			want:   PassOutcome{WithoutDelete: true, Reason: unavailable, DeleteFailed: unavailable},
		},
		"CoderDownAfterUncertainCreate": {
			reason: "a create whose answer was lost may have written an object with no id on the resource",
			in:     PassResult{ObserveErr: down, MayHaveCreated: true},
			want:   PassOutcome{WithoutDelete: true, Reason: unavailable, DeleteFailed: unavailable},
		},
		"CoderDownNothingEverCreated": {
			reason: "no id and no create ever begun: nothing can exist, nothing is leaked",
			in:     PassResult{ObserveErr: down},
			want:   PassOutcome{DeleteFailed: unavailable},
		},
		"NoClient": {
			reason: "the credentials are gone: nothing could be checked",
			in:     PassResult{NoClient: true, MayHaveCreated: true},
			want:   PassOutcome{WithoutDelete: true, Reason: ReasonCredentialsUnavailable, DeleteFailed: ReasonCredentialsUnavailable},
		},
		"DeleteFailed": {
			in:   PassResult{Existed: true, DeleteErr: down, MayHaveCreated: true},
			want: PassOutcome{WithoutDelete: true, Reason: unavailable, DeleteFailed: unavailable},
		},
		"SecondLookFailed": {
			reason: "an accepted delete is not a verified absence",
			in:     PassResult{Existed: true, AfterErr: down, MayHaveCreated: true},
			want:   PassOutcome{WithoutDelete: true, Reason: unavailable, DeleteFailed: unavailable},
		},
		"StillThere": {
			in:   PassResult{Existed: true, StillThere: true, MayHaveCreated: true},
			want: PassOutcome{WithoutDelete: true, Reason: reasonStillPresent, DeleteFailed: reasonStillPresent},
		},
		"Orphan": {
			reason: "an intentional abandon is not a leak",
			in:     PassResult{ObserveErr: down, MayHaveCreated: true, Orphan: true},
			want:   PassOutcome{},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, DecidePass(tc.in)); diff != "" {
				t.Errorf("%s\nDecidePass(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
