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

// Package spendwarning owns the spend warning of the AI budget kinds
// (spec.forProvider.warnAt): the SpendWarning condition, its one event per
// budget period and the provider_coder_budget_spend_ratio series. Decide is
// the whole policy, over plain data; Apply writes what it decided on the
// resource. It must not call Coder or write to the API server: the managed
// reconciler persists the status the kind's Observe leaves.
package spendwarning

import (
	"fmt"
	"math/big"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
)

// TypeSpendWarning is the condition of a budget whose warnAt is set.
const TypeSpendWarning xpv2.ConditionType = "SpendWarning"

// Reasons of the SpendWarning condition; ReasonReached is also the reason
// of the event sent once per budget period.
const (
	// ReasonReached: the spend this period is at or above warnAt percent
	// of the limit.
	ReasonReached xpv2.ConditionReason = "SpendReachedWarnAt"
	// ReasonBelow: the spend this period is below warnAt percent of the
	// limit.
	ReasonBelow xpv2.ConditionReason = "SpendBelowWarnAt"
	// ReasonNoLimit: the limit is 0, or Coder has not reported it, so
	// there is no share of it to warn at.
	ReasonNoLimit xpv2.ConditionReason = "NoSpendLimit"
)

// Spend is what Decide needs of one budget, as its status holds it after
// Observe.
type Spend struct {
	// WarnAt is spec.forProvider.warnAt: a percentage, or nil for none.
	WarnAt *int32
	// SpendMicros is the spend this budget period.
	SpendMicros int64
	// LimitMicros is the limit the spend counts against; nil when Coder
	// has not reported one.
	LimitMicros *int64
	// Of names the limit in messages: "the group's combined limit".
	Of string
	// PeriodStart and PeriodEnd bound the budget period; nil when Coder
	// has not reported it.
	PeriodStart, PeriodEnd *metav1.Time
	// Warned is the start of the period whose event was sent
	// (status.atProvider.warnedPeriodStart).
	Warned *metav1.Time
}

// A Decision is what to write on a budget after a poll.
type Decision struct {
	// Condition is the SpendWarning condition to set; nil removes it.
	Condition *xpv2.Condition
	// Ratio is the spend over the limit, published while HasRatio; without
	// a limit the resource's series is removed.
	Ratio    float64
	HasRatio bool
	// Event says to send the period's event, with the condition's message.
	Event bool
	// Warned is the period whose event was sent, to record in the status.
	Warned *metav1.Time
}

// Decide is the spend warning of s: the condition, the ratio to publish,
// and whether this poll sends the period's one event.
func Decide(s Spend) Decision {
	d := Decision{Warned: s.Warned}
	limit := int64(0)
	if s.LimitMicros != nil {
		limit = *s.LimitMicros
	}
	if limit > 0 {
		d.Ratio, d.HasRatio = float64(s.SpendMicros)/float64(limit), true
	}
	if s.WarnAt == nil {
		return d
	}
	c := xpv2.Condition{Type: TypeSpendWarning, Status: corev1.ConditionFalse}
	switch {
	case limit <= 0:
		c.Reason = ReasonNoLimit
		c.Message = fmt.Sprintf("%s is %s: there is no share of it to warn at (warnAt %d%%)", s.Of, limitText(s.LimitMicros), *s.WarnAt)
	case reached(s.SpendMicros, limit, *s.WarnAt):
		c.Status, c.Reason = corev1.ConditionTrue, ReasonReached
		c.Message = fmt.Sprintf("spend %d micros is %d%% of %s, %d micros: at or above warnAt %d%%; the budget period ends %s",
			s.SpendMicros, percent(s.SpendMicros, limit), s.Of, limit, *s.WarnAt, timeText(s.PeriodEnd))
		if s.PeriodStart != nil && (s.Warned == nil || !s.Warned.Equal(s.PeriodStart)) {
			d.Event, d.Warned = true, s.PeriodStart
		}
	default:
		c.Reason = ReasonBelow
		c.Message = fmt.Sprintf("spend %d micros is %d%% of %s, %d micros: below warnAt %d%%; the budget period ends %s",
			s.SpendMicros, percent(s.SpendMicros, limit), s.Of, limit, *s.WarnAt, timeText(s.PeriodEnd))
	}
	d.Condition = &c
	return d
}

// reached reports whether spend is at least warnAt percent of limit, in
// exact integers: spend*100 and warnAt*limit may not fit in an int64.
func reached(spend, limit int64, warnAt int32) bool {
	l := new(big.Int).Mul(big.NewInt(limit), big.NewInt(int64(warnAt)))
	return new(big.Int).Mul(big.NewInt(spend), big.NewInt(100)).Cmp(l) >= 0
}

// percent is spend as a whole percentage of limit, rounded down.
func percent(spend, limit int64) int64 {
	return new(big.Int).Quo(new(big.Int).Mul(big.NewInt(spend), big.NewInt(100)), big.NewInt(limit)).Int64()
}

func limitText(l *int64) string {
	if l == nil {
		return "not reported by Coder yet"
	}
	return fmt.Sprintf("%d micros", *l)
}

func timeText(t *metav1.Time) string {
	if t == nil {
		return "(not reported by Coder yet)"
	}
	return t.UTC().Format(time.RFC3339)
}
