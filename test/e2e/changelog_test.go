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

package e2e

import (
	"fmt"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	changelogs "github.com/crossplane/crossplane-runtime/v2/apis/changelogs/proto/v1alpha1"

	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"
)

// The operations of change-log entries, as the scenarios name them.
const (
	opCreate = changelogs.OperationType_OPERATION_TYPE_CREATE
	opUpdate = changelogs.OperationType_OPERATION_TYPE_UPDATE
	opDelete = changelogs.OperationType_OPERATION_TYPE_DELETE
)

// wantChanges waits until the change log holds, for o, at least the
// entries of ops in that order (other entries may come between them), each
// succeeding, and with the details each names. It is skipped where the
// provider runs outside this process (no change-log service here).
func wantChanges(t *testing.T, o client.Object, ops ...change) {
	t.Helper()
	if changes == nil {
		return
	}
	testenv.Eventually(t, testenv.WaitLong, fmt.Sprintf("change-log entries %v for %s", ops, o.GetName()), func() (bool, string) {
		got := changes.Of(string(o.GetUID()))
		i := 0
		for _, e := range got {
			if i < len(ops) && ops[i].matches(e) {
				i++
			}
		}
		seen := make([]string, 0, len(got))
		for _, e := range got {
			seen = append(seen, fmt.Sprintf("%s%v", e.GetOperation(), e.GetAdditionalDetails()))
		}
		return i == len(ops), fmt.Sprintf("entries %v", seen)
	})
}

// A change is an entry a scenario expects: its operation and details.
type change struct {
	op      changelogs.OperationType
	details map[string]string
	// failed: the operation's error is in the entry.
	failed bool
}

func (c change) String() string { return fmt.Sprintf("%s%v", c.op, c.details) }

func (c change) matches(e *changelogs.ChangeLogEntry) bool {
	if e.GetOperation() != c.op || (e.ErrorMessage != nil) != c.failed {
		return false
	}
	for k, v := range c.details {
		if e.GetAdditionalDetails()[k] != v {
			return false
		}
	}
	return true
}
