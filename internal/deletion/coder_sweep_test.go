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
	"net/http"
	"testing"
	"time"

	"github.com/coder/coder/v2/codersdk"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/google/uuid"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// fakeCoder starts a fake Coder and a client of it.
func fakeCoder(t *testing.T) (*fakecoder.Server, *coder.Client) {
	t.Helper()
	s := fakecoder.New(fakecoder.Options{})
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	cl, err := coder.New(coder.Config{URL: s.URL(), Token: s.Token(), Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return s, cl
}

func TestSweepFindsAKeyByNameWhenTheRecordedIDIsStale(t *testing.T) {
	ctx := context.Background()
	s, cl := fakeCoder(t)
	first, err := cl.CreateKey(ctx, "team-a-gw-0123abcd")
	if err != nil {
		t.Fatal(err)
	}
	// The first key was replaced; the record still names its id.
	if err := cl.DeleteKey(ctx, first.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := cl.CreateKey(ctx, "team-a-gw-0123abcd"); err != nil {
		t.Fatal(err)
	}
	other, err := cl.CreateKey(ctx, "team-b-gw-4567ef01")
	if err != nil {
		t.Fatal(err)
	}
	if f := sweep(ctx, cl, nil, rec(KindKey, first.ID.String(), "team-a-gw-0123abcd", time.Time{}, time.Time{})); f[0].err != nil {
		t.Fatalf("sweep: %v", f[0].err)
	}
	left := s.Keys()
	if len(left) != 1 || left[0].ID != other.ID {
		t.Errorf("keys left after the sweep = %+v, want only the other owner's key", left)
	}
}

func TestSweepLeavesAKeyALiveResourceManages(t *testing.T) {
	ctx := context.Background()
	s, cl := fakeCoder(t)
	k, err := cl.CreateKey(ctx, "team-a-gw-0123abcd")
	if err != nil {
		t.Fatal(err)
	}
	// A new resource imported the key by its external name.
	owned := Owned(func(id string) bool { return id == k.ID.String() })
	if f := sweep(ctx, cl, owned, rec(KindKey, k.ID.String(), "team-a-gw-0123abcd", time.Time{}, time.Time{})); f[0].err != nil {
		t.Fatalf("sweep: %v", f[0].err)
	}
	if len(s.Keys()) != 1 {
		t.Error("the sweep deleted a key a live resource manages")
	}
}

func createProvider(t *testing.T, cl *coder.Client, name string) codersdk.AIProvider {
	t.Helper()
	p, err := cl.CreateProvider(context.Background(), codersdk.CreateAIProviderRequest{
		Type: codersdk.AIProviderTypeOpenAI, Name: name, Enabled: true, BaseURL: "https://api.openai.com/v1", APIKeys: []string{"sk-test-not-a-secret"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSweepDeletesOnlyTheProviderTheAttemptCreated(t *testing.T) {
	ctx := context.Background()
	cases := map[string]struct {
		reason  string
		attempt time.Duration // before the provider's creation
		owned   bool
		stale   bool
		wantDel bool
	}{
		"UncertainCreate": {
			reason: "no id was recorded; Coder created it during our attempt", attempt: time.Second, wantDel: true,
		},
		"StaleID": {
			reason: "the recorded id is gone; a later create of ours made this one", attempt: time.Second, stale: true, wantDel: true,
		},
		"CreatedLaterBySomeoneElse": {
			reason: "our attempt was long before: someone else made it with that name", attempt: 10 * time.Minute,
		},
		"NoAttempt": {
			reason: "the attempt certainly wrote nothing",
		},
		"ImportedByALiveResource": {
			reason: "another resource holds it now", attempt: time.Second, owned: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s, cl := fakeCoder(t)
			var id string
			var attempt time.Time
			if tc.stale {
				old := createProvider(t, cl, "team-openai")
				if err := cl.DeleteProvider(ctx, old.ID.String()); err != nil {
					t.Fatal(err)
				}
				id = old.ID.String()
			}
			p := createProvider(t, cl, "team-openai")
			if tc.attempt > 0 {
				attempt = p.CreatedAt.Add(-tc.attempt)
			}
			var m Owned
			if tc.owned {
				m = func(id string) bool { return id == p.ID.String() }
			}
			if f := sweep(ctx, cl, m, rec(KindProvider, id, "team-openai", time.Time{}, attempt)); f[0].err != nil {
				t.Fatalf("sweep: %v", f[0].err)
			}
			live := s.Providers(false)
			if deleted := len(live) == 0; deleted != tc.wantDel {
				t.Errorf("%s\nprovider deleted = %t, want %t", tc.reason, deleted, tc.wantDel)
			}
		})
	}
}

func TestSweepDeletesNothingOlderThanTheClaim(t *testing.T) {
	ctx := context.Background()
	s, cl := fakeCoder(t)
	p := createProvider(t, cl, "made-by-hand")
	// A record written (or edited) after the provider existed names it by
	// id: not something its create made, but not absent either.
	if f := sweep(ctx, cl, nil, rec(KindProvider, p.ID.String(), "made-by-hand", time.Now().Add(5*time.Second), time.Time{})); !errors.Is(f[0].err, errPredates) {
		t.Fatalf("sweep = %v, want %v", f[0].err, errPredates)
	}
	if len(s.Providers(false)) != 1 {
		t.Error("a claim deleted a provider made before it")
	}
	if f := sweep(ctx, cl, nil, rec(KindProvider, p.ID.String(), "made-by-hand", p.CreatedAt.Add(-time.Second), time.Time{})); f[0].err != nil {
		t.Fatalf("sweep: %v", f[0].err)
	}
	if len(s.Providers(false)) != 0 {
		t.Error("a claim did not delete the provider made after it")
	}
}

// The sweep's claims are by our clock, Coder's rows by Coder's. Each case
// runs with Coder's clock two minutes behind ours and two minutes ahead:
// taken as they are, the times would make an owned key look older than
// its record in one direction and an older key look younger in the other.
var skews = map[string]time.Duration{"CoderBehind": -2 * time.Minute, "CoderAhead": 2 * time.Minute}

func TestSweepOfAKeyComparesCodersTimesOnlyWithCodersClock(t *testing.T) {
	ctx := context.Background()
	for name, offset := range skews {
		t.Run(name, func(t *testing.T) {
			s, cl := fakeCoder(t)
			s.SetClockOffset(offset)
			// The record is written before the create, by our clock.
			written := time.Now()
			owned, err := cl.CreateKey(ctx, "team-a-gw-0123abcd")
			if err != nil {
				t.Fatal(err)
			}
			older, err := cl.CreateKey(ctx, "team-b-gw-4567ef01")
			if err != nil {
				t.Fatal(err)
			}
			recs := []*clusterv1alpha1.CleanupRecord{
				rec(KindKey, owned.ID.String(), owned.Name, written, time.Time{}),
				// A record written five seconds after its key existed.
				rec(KindKey, older.ID.String(), older.Name, time.Now().Add(5*time.Second), time.Time{}),
			}
			// The record's own key: a verified delete; the key older than
			// its record: not the claim's, and not absent.
			errs := errsOf(sweep(ctx, cl, nil, recs...))
			if diff := cmp.Diff([]error{nil, errPredates}, errs, cmpopts.EquateErrors()); diff != "" {
				t.Errorf("sweep of the record's own key and of one older than its record: -want, +got:\n%s", diff)
			}
			left := s.Keys()
			if len(left) != 1 || left[0].ID != older.ID {
				t.Errorf("keys left after the sweep = %+v, want only the key older than its record", left)
			}
		})
	}
}

func TestSweepOfAProviderComparesCodersTimesOnlyWithCodersClock(t *testing.T) {
	ctx := context.Background()
	for name, offset := range skews {
		t.Run(name, func(t *testing.T) {
			s, cl := fakeCoder(t)
			s.SetClockOffset(offset)
			// An uncertain create: the record has the attempt, no id.
			attempt := time.Now()
			lost := createProvider(t, cl, "lost-answer")
			older := createProvider(t, cl, "older")
			if err := sweep(ctx, cl, nil, rec(KindProvider, "", lost.Name, attempt, attempt))[0].err; err != nil {
				t.Errorf("sweep of the provider an uncertain create made: %v, want a verified delete", err)
			}
			if err := sweep(ctx, cl, nil, rec(KindProvider, older.ID.String(), older.Name, time.Now().Add(5*time.Second), time.Time{}))[0].err; !errors.Is(err, errPredates) {
				t.Errorf("sweep of a provider older than its record: %v, want %v", err, errPredates)
			}
			left := s.Providers(false)
			if len(left) != 1 || left[0].ID != older.ID {
				t.Errorf("providers left after the sweep = %+v, want only the one older than its record", left)
			}
		})
	}
}

func TestKeyClaimNamesItsKeysByIDAndName(t *testing.T) {
	k := codersdk.AIGatewayKey{ID: uuid.New(), Name: "gw-ns-name-5f0c7b1e"}
	cases := map[string]struct {
		claim KeyClaim
		want  bool
	}{
		"ByID":        {claim: KeyClaim{IDs: []string{k.ID.String()}}, want: true},
		"ByName":      {claim: KeyClaim{Name: nameIs(k.Name)}, want: true},
		"Neither":     {claim: KeyClaim{IDs: []string{uuid.NewString()}, Name: nameIs("gw-other")}},
		"EmptyIDName": {claim: KeyClaim{IDs: []string{""}, Name: nameIs("")}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := tc.claim.Names(k); got != tc.want {
				t.Errorf("Names = %v, want %v", got, tc.want)
			}
		})
	}
}

// deleteAnswers are the answers of a delete that does not prove the object
// gone (DESIGN §4 invariant 2): Coder's 204, or its 404, while it still
// lists the object.
var deleteAnswers = map[string]int{"204": http.StatusNoContent, "404": http.StatusNotFound}

func TestSweepCountsAKeyGoneOnlyWhenTheListAfterItsDeleteLacksIt(t *testing.T) {
	for name, status := range deleteAnswers {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			s, cl := fakeCoder(t)
			kept, err := cl.CreateKey(ctx, "team-a-gw-0123abcd")
			if err != nil {
				t.Fatal(err)
			}
			recs := []*clusterv1alpha1.CleanupRecord{
				rec(KindKey, kept.ID.String(), kept.Name, time.Time{}, time.Time{}),
				// Gone before the sweep: a verified absence whatever the
				// deletes answer.
				rec(KindKey, uuid.NewString(), "team-b-gw-4567ef01", time.Time{}, time.Time{}),
			}
			if err := s.SetFault(fakecoder.EndpointKeysDelete, fakecoder.Fault{Status: status}); err != nil {
				t.Fatal(err)
			}
			// The claim whose key Coder still lists, and the claim whose
			// key is gone: a verified absence.
			errs := errsOf(sweep(ctx, cl, nil, recs...))
			if diff := cmp.Diff([]error{ErrStillPresent, nil}, errs, cmpopts.EquateErrors()); diff != "" {
				t.Errorf("-want, +got:\n%s", diff)
			}
			if len(s.Keys()) != 1 {
				t.Fatalf("%d keys in Coder, want the one its delete kept", len(s.Keys()))
			}
			s.ClearFaults()
			if errs := errsOf(sweep(ctx, cl, nil, recs...)); errs[0] != nil || errs[1] != nil {
				t.Errorf("sweep once the deletes delete: %v", errs)
			}
			if len(s.Keys()) != 0 {
				t.Errorf("%d keys left after a sweep that verified their absence", len(s.Keys()))
			}
		})
	}
}

func TestSweepCountsAProviderGoneOnlyWhenAReadAfterItsDeleteLacksIt(t *testing.T) {
	for name, status := range deleteAnswers {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			s, cl := fakeCoder(t)
			p := createProvider(t, cl, "team-openai")
			c := rec(KindProvider, p.ID.String(), "", time.Time{}, time.Time{})
			if err := s.SetFault(fakecoder.EndpointProviderDelete, fakecoder.Fault{Status: status}); err != nil {
				t.Fatal(err)
			}
			if err := sweep(ctx, cl, nil, c)[0].err; !errors.Is(err, ErrStillPresent) {
				t.Errorf("sweep of a provider Coder still serves: %v, want %v", err, ErrStillPresent)
			}
			if len(s.Providers(false)) != 1 {
				t.Fatal("the faulted delete removed the provider")
			}
			s.ClearFaults()
			if err := sweep(ctx, cl, nil, c)[0].err; err != nil {
				t.Errorf("sweep once the delete deletes: %v", err)
			}
			if len(s.Providers(false)) != 0 {
				t.Error("the provider is live after a sweep that verified its absence")
			}
		})
	}
}
