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
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
	"github.com/crossplane-contrib/provider-coder/internal/policy"
	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
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
			in:     PassResult{MayHaveAttempted: true},
			want:   PassOutcome{},
		},
		"Deleted": {
			reason: "a delete confirmed by a second look is a normal release",
			in:     PassResult{Existed: true, MayHaveAttempted: true},
			want:   PassOutcome{},
		},
		"CoderDownWithID": {
			reason: "a failed look is not an absence",
			in:     PassResult{ObserveErr: down, MayHaveAttempted: true},
			want:   PassOutcome{WithoutDelete: true, Reason: unavailable, DeleteFailed: unavailable},
		},
		"CoderDownAfterUncertainCreate": {
			reason: "a create whose answer was lost may have written an object with no id on the resource",
			in:     PassResult{ObserveErr: down, MayHaveAttempted: true},
			want:   PassOutcome{WithoutDelete: true, Reason: unavailable, DeleteFailed: unavailable},
		},
		"CoderDownNothingEverCreated": {
			reason: "no id and no create ever begun: nothing can exist, nothing is leaked",
			in:     PassResult{ObserveErr: down},
			want:   PassOutcome{DeleteFailed: unavailable},
		},
		"NoClient": {
			reason: "the credentials are gone: nothing could be checked",
			in:     PassResult{NoClient: true, MayHaveAttempted: true},
			want:   PassOutcome{WithoutDelete: true, Reason: ReasonCredentialsUnavailable, DeleteFailed: ReasonCredentialsUnavailable},
		},
		"DeleteFailed": {
			in:   PassResult{Existed: true, DeleteErr: down, MayHaveAttempted: true},
			want: PassOutcome{WithoutDelete: true, Reason: unavailable, DeleteFailed: unavailable},
		},
		"SecondLookFailed": {
			reason: "an accepted delete is not a verified absence",
			in:     PassResult{Existed: true, AfterErr: down, MayHaveAttempted: true},
			want:   PassOutcome{WithoutDelete: true, Reason: unavailable, DeleteFailed: unavailable},
		},
		"StillThere": {
			in:   PassResult{Existed: true, StillThere: true, MayHaveAttempted: true},
			want: PassOutcome{WithoutDelete: true, Reason: reasonStillPresent, DeleteFailed: reasonStillPresent},
		},
		"Orphan": {
			reason: "an intentional abandon is not a leak",
			in:     PassResult{ObserveErr: down, MayHaveAttempted: true, Orphan: true},
			want:   PassOutcome{},
		},
		"Stalled": {
			reason: "a paused resource released at its bound asked nothing of Coder: a release without delete, and no failed delete",
			in:     PassResult{Stalled: policy.ReasonPaused, MayHaveAttempted: true},
			want:   PassOutcome{WithoutDelete: true, Reason: policy.ReasonPaused},
		},
		"StalledNothingEverCreated": {
			reason: "a paused resource that never created anything leaves nothing",
			in:     PassResult{Stalled: policy.ReasonUnsupportedPolicies},
			want:   PassOutcome{},
		},
		"StalledOrphan": {
			reason: "a paused orphan keeps its object on purpose",
			in:     PassResult{Stalled: policy.ReasonPaused, MayHaveAttempted: true, Orphan: true},
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

func TestNextIsOneStepForTheNormalPathAndTheBoundedPass(t *testing.T) {
	down := errors.New("coder down")
	cases := map[string]struct {
		reason string
		mode   providerconfig.Mode
		in     PassResult
		want   Step
	}{
		"NormalLeft":         {reason: "Something is left: delete it.", mode: providerconfig.ModeNormal, in: PassResult{Existed: true}, want: StepDelete},
		"NormalGone":         {reason: "A look that finds nothing is a verified absence.", mode: providerconfig.ModeNormal, in: PassResult{}, want: StepEnd},
		"NormalLookFailed":   {reason: "While the ProviderConfig holds, a failed look is retried, never taken for gone.", mode: providerconfig.ModeNormal, in: PassResult{ObserveErr: down}, want: StepRetry},
		"BoundedLeft":        {reason: "The bounded pass deletes once what its first look found.", mode: providerconfig.ModeBoundedPass, in: PassResult{Existed: true}, want: StepDelete},
		"BoundedGone":        {reason: "A first look that finds nothing ends the pass: verified.", mode: providerconfig.ModeBoundedPass, in: PassResult{}, want: StepEnd},
		"BoundedLookFailed":  {reason: "A first look that fails ends the pass: DecidePass releases without delete.", mode: providerconfig.ModeBoundedPass, in: PassResult{Existed: true, ObserveErr: down}, want: StepEnd},
		"BoundedNoClient":    {reason: "Without a client there is nothing to try.", mode: providerconfig.ModeBoundedPass, in: PassResult{NoClient: true}, want: StepEnd},
		"BoundedAfterDelete": {reason: "The look after the pass's one delete ends the pass, whatever it finds: no second delete.", mode: providerconfig.ModeBoundedPass, in: PassResult{Deleted: true, Existed: true, StillThere: true}, want: StepEnd},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := Next(tc.mode, tc.in); got != tc.want {
				t.Errorf("%s\nNext(%s, %+v) = %s, want %s", tc.reason, tc.mode, tc.in, got, tc.want)
			}
		})
	}
}
