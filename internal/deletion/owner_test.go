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
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestARecordOwnsItsObjectAndWithoutOneTheOldestLiveResourceDoes(t *testing.T) {
	old := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	later := old.Add(time.Hour)
	victim := Owner{UID: "victim", Kind: "AIProvider", Namespace: "v", Name: "p", Created: later}
	victimRecord := Owner{UID: "victim", Kind: "AIProvider", Namespace: "v", Name: "p", Record: true}
	attacker := Owner{UID: "attacker", Kind: "AIProvider", Namespace: "a", Name: "p", Created: old}
	attackerRecord := Owner{UID: "attacker", Kind: "AIProvider", Namespace: "a", Name: "p", Record: true}
	type want struct {
		owner Owner
		other bool
	}
	cases := map[string]struct {
		reason string
		self   string
		claims []Owner
		want   want
	}{
		"NobodyClaims": {
			reason: "An object nothing owns may be imported.",
			self:   "attacker",
			want:   want{},
		},
		"OnlySelfLive": {
			reason: "A resource importing an object only it names owns it.",
			self:   "attacker",
			claims: []Owner{attacker},
			want:   want{},
		},
		"AnotherRecordOutranksAnOlderLiveResource": {
			reason: "The victim's record owns the object, even against an older resource naming it.",
			self:   "attacker",
			claims: []Owner{attacker, victim, victimRecord},
			want:   want{owner: victimRecord, other: true},
		},
		"OwnRecordIsNeverRefused": {
			reason: "A resource with its own record is not blocked by another naming the object: no denial of service by external name.",
			self:   "victim",
			claims: []Owner{attacker, victim, victimRecord},
			want:   want{},
		},
		"OwnRecordAmongForeignRecords": {
			reason: "A resource with its own record keeps the object whatever other records say.",
			self:   "victim",
			claims: []Owner{attackerRecord, victimRecord},
			want:   want{},
		},
		"WithoutRecordsTheOldestLiveOwns": {
			reason: "Without records, a later resource cannot take an object an earlier one names.",
			self:   "victim",
			claims: []Owner{victim, attacker},
			want:   want{owner: attacker, other: true},
		},
		"WithoutRecordsTheOldestIsSelf": {
			reason: "The oldest live resource naming the object owns it.",
			self:   "attacker",
			claims: []Owner{victim, attacker},
			want:   want{},
		},
		"SameAgeTieByUID": {
			reason: "Equal creation times are decided by UID, the same way for both.",
			self:   "b",
			claims: []Owner{{UID: "b", Created: old}, {UID: "a", Created: old}},
			want:   want{owner: Owner{UID: "a", Created: old}, other: true},
		},
		"RecordOfAnotherWithoutLive": {
			reason: "A record of a resource being swept still owns its object.",
			self:   "attacker",
			claims: []Owner{victimRecord, attacker},
			want:   want{owner: victimRecord, other: true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			owner, other := OwnerOf(tc.self, tc.claims)
			if diff := cmp.Diff(tc.want, want{owner: owner, other: other}, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nOwnerOf(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestErrOwnedNamesTheOwner(t *testing.T) {
	err := ErrOwned("0b7e", Owner{UID: "u1", Kind: "AIGatewayKey", Namespace: "victim", Name: "k"})
	want := "the Coder object 0b7e is owned by AIGatewayKey victim/k (UID u1); this resource does not adopt, import, change or delete it: remove its external name, or delete that resource first"
	if diff := cmp.Diff(want, err.Error()); diff != "" {
		t.Errorf("ErrOwned(...): -want, +got:\n%s", diff)
	}
}
