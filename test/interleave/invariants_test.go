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

package interleave

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"

	"github.com/crossplane-contrib/provider-coder/internal/controller/aigatewaykey"
)

func testWorld() World {
	return World{Prefix: "w", MRs: []MR{
		{Kind: Key, Namespace: "ns", Name: "key"},
		{Kind: Key, Namespace: "ns", Name: "kept", Orphan: true},
		{Kind: Provider, Name: "w-prov", CoderName: "w-p2"},
		{Kind: Key, Namespace: "ns", Name: "imp", Import: true},
	}}
}

func keyRow(id, ns, name, uid string, n int) Row {
	return Row{Kind: Key, ID: id, Name: aigatewaykey.RotatedKeyName("", ns, name, uid, n)}
}

func TestACoderObjectLeaksUnlessALiveResourceOrAnOrphanAccountsForIt(t *testing.T) {
	w := testWorld()
	incs := []Incarnation{{MR: 0, UID: "uid-a"}, {MR: 0, UID: "uid-b"}, {MR: 1, UID: "uid-k"}, {MR: 3, UID: "uid-i"}}
	cases := map[string]struct {
		rows       []Row
		live       map[int]types.UID
		notAdopted bool
		want       int
	}{
		"a live resource's key and its rotation's": {
			rows: []Row{keyRow("1", "ns", "key", "uid-b", 0), keyRow("2", "ns", "key", "uid-b", 1)},
			live: map[int]types.UID{0: "uid-b"},
		},
		"an earlier incarnation's key leaks, though the name lives again": {
			rows: []Row{keyRow("1", "ns", "key", "uid-a", 0)},
			live: map[int]types.UID{0: "uid-b"},
			want: 1,
		},
		"a deleted resource's key leaks": {
			rows: []Row{keyRow("1", "ns", "key", "uid-b", 0)},
			want: 1,
		},
		"an Orphan's key is kept on purpose": {
			rows: []Row{keyRow("1", "ns", "kept", "uid-k", 0)},
		},
		"a deleted resource's provider leaks": {
			rows: []Row{{Kind: Provider, ID: "p", Name: "w-p2"}},
			want: 1,
		},
		"a live resource's provider": {
			rows: []Row{{Kind: Provider, ID: "p", Name: "w-p2"}},
			live: map[int]types.UID{2: "uid-p"},
		},
		"an imported key the provider recorded outlives its deleted importer": {
			rows: []Row{{Kind: Key, ID: "imported-id", Name: "anything"}},
			want: 1,
		},
		"an imported key the provider never recorded was never its to delete": {
			rows:       []Row{{Kind: Key, ID: "imported-id", Name: "anything"}},
			notAdopted: true,
		},
		"an object of nobody's": {
			rows: []Row{{Kind: Key, ID: "x", Name: "stranger"}, {Kind: Provider, ID: "y", Name: "stranger"}},
			want: 2,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := Ownership{World: w, Incarnations: incs, Live: tc.live, Imported: map[string]int{"imported-id": 3}, Adopted: map[string]bool{"imported-id": !tc.notAdopted}}
			got := Leaks(tc.rows, o)
			if len(got) != tc.want {
				t.Errorf("Leaks: %d leaks, want %d: %v", len(got), tc.want, got)
			}
		})
	}
}

func TestAReleaseIsExpectedOnlyForAResourceGoneWhileItsRecordStoodAbandoned(t *testing.T) {
	abandon := func(rv uint64, uid types.UID) RecordEvent {
		return RecordEvent{RV: rv, Record: "r-" + string(uid), UID: uid, Abandoned: true}
	}
	active := func(rv uint64, uid types.UID) RecordEvent {
		return RecordEvent{RV: rv, Record: "r-" + string(uid), UID: uid}
	}
	released := func(rv uint64, uid types.UID) RecordEvent {
		return RecordEvent{RV: rv, Record: "r-" + string(uid), UID: uid, Abandoned: true, Released: true}
	}
	deleted := func(rv uint64, uid types.UID, abandoned bool) RecordEvent {
		return RecordEvent{RV: rv, Record: "r-" + string(uid), UID: uid, Abandoned: abandoned, Deleted: true}
	}
	cases := map[string]struct {
		records []RecordEvent
		gone    []Gone
		want    []types.UID
		// may: releases that may be counted or not.
		may []types.UID
	}{
		"gone while its record stood Abandoned": {
			records: []RecordEvent{active(1, "a"), abandon(5, "a"), deleted(9, "a", true)},
			gone:    []Gone{{RV: 7, UID: "a"}},
			want:    []types.UID{"a"},
		},
		"record deleted before the resource went: a verified delete": {
			records: []RecordEvent{active(1, "a"), deleted(6, "a", false)},
			gone:    []Gone{{RV: 7, UID: "a"}},
		},
		"Abandoned by an earlier pass, then deleted by a verified delete": {
			records: []RecordEvent{active(1, "a"), abandon(3, "a"), deleted(6, "a", true)},
			gone:    []Gone{{RV: 7, UID: "a"}},
		},
		"Abandoned by the sweep after it vanished": {
			records: []RecordEvent{active(1, "a"), abandon(9, "a")},
			gone:    []Gone{{RV: 7, UID: "a"}},
		},
		"stripped by hand while released: the provider's release stands, counted or not": {
			records: []RecordEvent{released(3, "a")},
			gone:    []Gone{{RV: 7, UID: "a", Stripped: true}},
			may:     []types.UID{"a"},
		},
		"stripped by hand, then released on a copy read before the strip": {
			records: []RecordEvent{active(3, "a"), released(9, "a")},
			gone:    []Gone{{RV: 7, UID: "a", Stripped: true}},
			may:     []types.UID{"a"},
		},
		"stripped by hand, then Abandoned by the sweep: no release": {
			records: []RecordEvent{active(3, "a"), abandon(9, "a")},
			gone:    []Gone{{RV: 7, UID: "a", Stripped: true}},
		},
		"stripped by hand while Active: no release": {
			records: []RecordEvent{active(3, "a")},
			gone:    []Gone{{RV: 7, UID: "a", Stripped: true}},
		},
		"one of a rotated key's records Abandoned": {
			records: []RecordEvent{
				{RV: 1, Record: "base", UID: "a"}, {RV: 2, Record: "rot-1", UID: "a"},
				{RV: 4, Record: "rot-1", UID: "a", Abandoned: true},
			},
			gone: []Gone{{RV: 7, UID: "a"}},
			want: []types.UID{"a"},
		},
		"another resource's record": {
			records: []RecordEvent{abandon(3, "b")},
			gone:    []Gone{{RV: 7, UID: "a"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			must, may := ExpectedReleases(tc.records, tc.gone)
			if d := cmp.Diff(tc.want, must); d != "" {
				t.Errorf("ExpectedReleases must (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.may, may); d != "" {
				t.Errorf("ExpectedReleases may (-want +got):\n%s", d)
			}
		})
	}
}

func TestReleaseCountMustBeExactExceptWhatAKillCut(t *testing.T) {
	cases := map[string]struct {
		counted, expected, may, lost int
		ok                           bool
	}{
		"a stripped release counted":         {counted: 2, expected: 1, may: 1, ok: true},
		"a stripped release not counted":     {counted: 1, expected: 1, may: 1, ok: true},
		"more than may allows":               {counted: 3, expected: 1, may: 1},
		"exact":                              {counted: 2, expected: 2, ok: true},
		"none":                               {ok: true},
		"counted one too many":               {counted: 3, expected: 2},
		"counted one without a release":      {counted: 1},
		"one missing":                        {counted: 1, expected: 2},
		"one missing that a kill cut":        {counted: 1, expected: 2, lost: 1, ok: true},
		"a kill never excuses an extra one":  {counted: 3, expected: 2, lost: 1},
		"a kill excuses only what it cut":    {counted: 0, expected: 2, lost: 1},
		"a kill near a release, count exact": {counted: 2, expected: 2, lost: 1, ok: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := Releases(tc.counted, tc.expected, tc.may, tc.lost); (len(got) == 0) != tc.ok {
				t.Errorf("Releases(%d, %d, %d, %d) = %v, want ok %v", tc.counted, tc.expected, tc.may, tc.lost, got, tc.ok)
			}
		})
	}
}

func TestExposedNamesWhereButNeverTheSecret(t *testing.T) {
	secret := "sk-test-0123456789abcdef"
	got := Exposed(map[string]string{
		"provider logs": "error: token " + secret + " refused",
		"events":        "nothing here",
	}, []string{secret, "short"})
	if len(got) != 1 || !strings.Contains(got[0], "provider logs") {
		t.Fatalf("Exposed = %v, want one finding in the provider logs", got)
	}
	if strings.Contains(got[0], secret) {
		t.Errorf("the finding repeats the secret: %s", got[0])
	}
}

func TestMoreThanTwoKeysOfOneResourceAreDuplicates(t *testing.T) {
	if got := Duplicates(map[types.UID]int{"a": 2, "b": 1}); len(got) != 0 {
		t.Errorf("two keys (a rotation) flagged: %v", got)
	}
	if got := Duplicates(map[types.UID]int{"a": 3}); len(got) != 1 {
		t.Errorf("three keys not flagged: %v", got)
	}
}

func TestAPublishedKeyWithoutAValidPlaintextIsFlagged(t *testing.T) {
	got := ReadyWithoutPlaintext([]Published{
		{Name: "ok", Plaintext: "k", Valid: true},
		{Name: "missing"},
		{Name: "dead", Plaintext: "k"},
	})
	if len(got) != 2 || !strings.Contains(got[0], "missing") || !strings.Contains(got[1], "dead") {
		t.Errorf("ReadyWithoutPlaintext = %v, want the missing and the dead one", got)
	}
}

// A provider or MCP server a record keeps for a creator that cannot reach
// Coder is no leak at quiet; anything else of the same rows still is.
func TestAnObjectWaitingForItsUnreachableCreatorIsNoLeakAtQuiet(t *testing.T) {
	rows := []Row{
		{Kind: Provider, ID: "1", Name: "p3"},
		{Kind: MCP, ID: "2", Name: "p3"},
		{Kind: Provider, ID: "3", Name: "p4"},
	}
	got := LeftForCreators(rows, []Waiting{{Kind: Provider, Name: "p3"}})
	want := []Row{{Kind: MCP, ID: "2", Name: "p3"}, {Kind: Provider, ID: "3", Name: "p4"}}
	if !slices.Equal(got, want) {
		t.Errorf("LeftForCreators = %+v, want %+v: only the provider named p3 waits", got, want)
	}
	if got := LeftForCreators(rows, nil); !slices.Equal(got, rows) {
		t.Errorf("LeftForCreators with nothing waiting = %+v, want every row", got)
	}
}
