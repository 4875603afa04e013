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

package testenv

import (
	"strings"
	"testing"

	"github.com/crossplane-contrib/provider-coder/test/framework/packagerbac"
)

// A denial a scenario expects is excused only where it was logged while
// the scenario expected it, and only its own kind of denial.
func TestExpectedDenialsAreExcusedOnlyInTheirWindow(t *testing.T) {
	denial := func(what string) string {
		return `{"error":"forbidden: User \"` + packagerbac.User() + `\" cannot ` + what + `"}` + "\n"
	}
	before := denial(`delete resource \"cleanuprecords\"`)
	during := denial(`delete resource \"cleanuprecords\"`) + denial(`list resource \"pods\"`)
	after := denial(`delete resource \"cleanuprecords\"`)
	d := &Denials{expected: []*expectedDenial{{part: `cannot delete resource "cleanuprecords"`, from: len(before), to: len(before) + len(during)}}}
	got := d.unexpectedInLog(before + during + after)
	if len(got) != 3 || !strings.Contains(got[1], "pods") {
		t.Errorf("unexpected denials = %q, want the record deletes before and after the window and the pod list within it", got)
	}
}
