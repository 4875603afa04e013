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

package main

// warnMutations break issue 52's budgets that warn before they bite: the
// SpendWarning condition turns at warnAt, and its event is sent once per
// budget period.
var warnMutations = []Mutation{
	{
		// A warn condition that never turns: the spend reaches warnAt and
		// the condition stays False.
		Name: "spend-warning-never-turns",
		File: "internal/spendwarning/decide.go",
		Old:  "\tcase reached(s.SpendMicros, limit, *s.WarnAt):\n",
		New:  "\tcase false && reached(s.SpendMicros, limit, *s.WarnAt):\n",
		Pkgs: []string{"./internal/spendwarning/", "./test/e2e/"},
		Run:  "^(TestSpendWarningTurnsAtWarnAtAndEventsOncePerPeriod|TestApplyEventsOncePerPeriodKeepsTheTransitionTimeAndRemovesWhatIsUnset|TestBudgetSpendWarningTurnsTrueWithFiguresAndEventsOncePerPeriod)$",
	},
	{
		// The warning's event sent at every poll of the period, not once.
		Name: "spend-warning-events-every-poll",
		File: "internal/spendwarning/decide.go",
		Old:  "\t\tif s.PeriodStart != nil && (s.Warned == nil || !s.Warned.Equal(s.PeriodStart)) {\n",
		New:  "\t\tif s.PeriodStart != nil {\n",
		Pkgs: []string{"./internal/spendwarning/", "./test/e2e/"},
		Run:  "^(TestSpendWarningTurnsAtWarnAtAndEventsOncePerPeriod|TestApplyEventsOncePerPeriodKeepsTheTransitionTimeAndRemovesWhatIsUnset|TestBudgetSpendWarningTurnsTrueWithFiguresAndEventsOncePerPeriod)$",
	},
}

func init() { Mutations = append(Mutations, warnMutations...) }
