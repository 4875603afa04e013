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

package spendwarning

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
)

var (
	july   = metav1.NewTime(time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC))
	august = metav1.NewTime(time.Date(2026, 8, 1, 0, 0, 0, 0, time.UTC))
	june   = metav1.NewTime(time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC))
)

// spend is a budget of 5,000,000 micros in July, warning at 80%.
func spend(micros int64, change ...func(*Spend)) Spend {
	s := Spend{WarnAt: ptr.To[int32](80), SpendMicros: micros, LimitMicros: ptr.To[int64](5_000_000),
		Of: "the user's limit", PeriodStart: &july, PeriodEnd: &august}
	for _, c := range change {
		c(&s)
	}
	return s
}

func condition(status corev1.ConditionStatus, reason xpv2.ConditionReason, msg string) *xpv2.Condition {
	return &xpv2.Condition{Type: TypeSpendWarning, Status: status, Reason: reason, Message: msg}
}

func TestSpendWarningTurnsAtWarnAtAndEventsOncePerPeriod(t *testing.T) {
	const (
		reached = "spend 4000000 micros is 80% of the user's limit, 5000000 micros: at or above warnAt 80%; the budget period ends 2026-08-01T00:00:00Z"
		below   = "spend 3999999 micros is 79% of the user's limit, 5000000 micros: below warnAt 80%; the budget period ends 2026-08-01T00:00:00Z"
	)
	cases := map[string]struct {
		reason string
		in     Spend
		want   Decision
	}{
		"Unset": {
			reason: "Without warnAt there is no condition and no event, but the ratio is published.",
			in:     spend(4_500_000, func(s *Spend) { s.WarnAt = nil }),
			want:   Decision{Ratio: 0.9, HasRatio: true},
		},
		"UnsetKeepsTheWarnedPeriod": {
			reason: "Unsetting warnAt forgets nothing: set again in the same period, it does not event twice.",
			in:     spend(4_500_000, func(s *Spend) { s.WarnAt, s.Warned = nil, &july }),
			want:   Decision{Ratio: 0.9, HasRatio: true, Warned: &july},
		},
		"JustBelow": {
			reason: "One micro short of warnAt percent is below it.",
			in:     spend(3_999_999),
			want:   Decision{Condition: condition(corev1.ConditionFalse, ReasonBelow, below), Ratio: 0.7999998, HasRatio: true},
		},
		"ReachedFirstTime": {
			reason: "Exactly warnAt percent turns it True, and the period's event is sent and recorded.",
			in:     spend(4_000_000),
			want:   Decision{Condition: condition(corev1.ConditionTrue, ReasonReached, reached), Ratio: 0.8, HasRatio: true, Event: true, Warned: &july},
		},
		"ReachedAlreadyWarned": {
			reason: "A later poll of the same period, or a restart, sends no second event.",
			in:     spend(4_000_000, func(s *Spend) { s.Warned = &july }),
			want:   Decision{Condition: condition(corev1.ConditionTrue, ReasonReached, reached), Ratio: 0.8, HasRatio: true, Warned: &july},
		},
		"ReachedInANewPeriod": {
			reason: "The event of June does not stand for July's.",
			in:     spend(4_000_000, func(s *Spend) { s.Warned = &june }),
			want:   Decision{Condition: condition(corev1.ConditionTrue, ReasonReached, reached), Ratio: 0.8, HasRatio: true, Event: true, Warned: &july},
		},
		"BelowAfterWarned": {
			reason: "Back below (a raised limit) is False, and keeps the period warned: no second event if it rises again.",
			in:     spend(3_999_999, func(s *Spend) { s.Warned = &july }),
			want:   Decision{Condition: condition(corev1.ConditionFalse, ReasonBelow, below), Ratio: 0.7999998, HasRatio: true, Warned: &july},
		},
		"OverTheLimit": {
			reason: "Spend past the limit is still reached, and the ratio above 1.",
			in:     spend(6_000_000, func(s *Spend) { s.WarnAt = ptr.To[int32](100) }),
			want: Decision{Condition: condition(corev1.ConditionTrue, ReasonReached,
				"spend 6000000 micros is 120% of the user's limit, 5000000 micros: at or above warnAt 100%; the budget period ends 2026-08-01T00:00:00Z"),
				Ratio: 1.2, HasRatio: true, Event: true, Warned: &july},
		},
		"ZeroLimit": {
			reason: "A limit of 0 has no share to warn at, and no ratio.",
			in:     spend(0, func(s *Spend) { s.LimitMicros = ptr.To[int64](0) }),
			want: Decision{Condition: condition(corev1.ConditionFalse, ReasonNoLimit,
				"the user's limit is 0 micros: there is no share of it to warn at (warnAt 80%)")},
		},
		"LimitNotReported": {
			reason: "Before Coder reported the limit there is no ratio, and no warning.",
			in:     spend(0, func(s *Spend) { s.LimitMicros = nil }),
			want: Decision{Condition: condition(corev1.ConditionFalse, ReasonNoLimit,
				"the user's limit is not reported by Coder yet: there is no share of it to warn at (warnAt 80%)")},
		},
		"PeriodNotReported": {
			reason: "Reached without a period: True, but no event, which could not be keyed to its period.",
			in:     spend(4_000_000, func(s *Spend) { s.PeriodStart, s.PeriodEnd = nil, nil }),
			want: Decision{Condition: condition(corev1.ConditionTrue, ReasonReached,
				"spend 4000000 micros is 80% of the user's limit, 5000000 micros: at or above warnAt 80%; the budget period ends (not reported by Coder yet)"),
				Ratio: 0.8, HasRatio: true},
		},
		"HugeFiguresDoNotOverflow": {
			reason: "A group's combined limit of a million members at the maximum limit: spend*100 does not fit an int64.",
			in: spend(900_000_000_000_000_000, func(s *Spend) {
				s.LimitMicros, s.WarnAt, s.Of = ptr.To[int64](1_000_000_000_000_000_000), ptr.To[int32](90), "the group's combined limit"
			}),
			want: Decision{Condition: condition(corev1.ConditionTrue, ReasonReached,
				"spend 900000000000000000 micros is 90% of the group's combined limit, 1000000000000000000 micros: at or above warnAt 90%; the budget period ends 2026-08-01T00:00:00Z"),
				Ratio: 0.9, HasRatio: true, Event: true, Warned: &july},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := Decide(tc.in)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("\n%s\nDecide(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
