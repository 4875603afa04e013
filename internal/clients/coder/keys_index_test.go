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

package coder

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"github.com/coder/coder/v2/codersdk"
)

func namesOf(keys []codersdk.AIGatewayKey) []string {
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, k.Name)
	}
	return out
}

func TestKeyListFindsKeysByTheLastWordOfTheirNameAndByID(t *testing.T) {
	keys := keysNamed(
		"team-a-gw-0b1c2d3e",      // 0: an owner's first key
		"team-b-gw-99999999",      // 1: another owner's
		"team-a-gw-0b1c2d3e-r2",   // 2: the first owner's second rotation
		"0b1c2d3e",                // 3: a name that is the word alone
		"0b1c2d3e-team",           // 4: the word, but not last: found by team
		"imported-by-hand",        // 5: found by id only
		"team-a-gw-0b1c2d3e-r0",   // 6: r0 is no rotation: its last word is r0
		"team-a-gw-x0b1c2d3e-r1",  // 7: another word before the suffix
		"team-a-gw-0b1c2d3e-r1x1", // 8: no rotation suffix either
	)
	l := NewKeyList(keys)
	cases := map[string]struct {
		word string
		ids  []string
		want []string
	}{
		"ByWordInCodersOrder":    {word: "0b1c2d3e", want: []string{keys[0].Name, keys[2].Name, keys[3].Name}},
		"ByWordAndIDOnceEach":    {word: "0b1c2d3e", ids: []string{keys[5].ID.String(), keys[2].ID.String(), "not-an-id", uuid.NewString()}, want: []string{keys[0].Name, keys[2].Name, keys[3].Name, keys[5].Name}},
		"AnotherOwnersWord":      {word: "99999999", want: []string{keys[1].Name}},
		"TheRotationWordItself":  {word: "r2", want: []string{keys[2].Name}},
		"NoWordNarrowsNothing":   {word: "", want: namesOf(keys)},
		"TheLastWordOnly":        {word: "team", want: []string{keys[4].Name}},
		"AWordNoNameEndsIn":      {word: "gw", want: []string{}},
		"IDsWithAnUnknownWord":   {word: "nobody", ids: []string{keys[4].ID.String()}, want: []string{keys[4].Name}},
		"NotARotationSuffix":     {word: "r0", want: []string{keys[6].Name}},
		"NotTheOwnersWordBefore": {word: "x0b1c2d3e", want: []string{keys[7].Name}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, namesOf(l.Find(tc.word, tc.ids...))); diff != "" {
				t.Errorf("Find(%q, %v): -want, +got:\n%s", tc.word, tc.ids, diff)
			}
		})
	}
	if k, ok := l.ByID(keys[5].ID); !ok || k.Name != keys[5].Name {
		t.Errorf("ByID(%s) = %q, %v; want %q", keys[5].ID, k.Name, ok, keys[5].Name)
	}
	if _, ok := l.ByID(uuid.New()); ok {
		t.Error("ByID of an unknown id found a key")
	}
	// The list is shared: what a caller gets cannot change it.
	got := l.Keys()
	got[0].Name = "changed"
	if l.Keys()[0].Name != keys[0].Name {
		t.Error("a caller changed the shared list through Keys")
	}
}

// A delete changes nothing another key looks for: the others go on with
// the cached list, and only the owner that deleted waits for a list sent
// after Coder's answer, on which the deleted key's absence is verified.
func TestKeyListerServesOthersTheCachedListAfterADelete(t *testing.T) {
	ctx := context.Background()
	c, n := keyServer(t, func(_ int64, w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, keysNamed("a", "b"))
	})
	l := NewKeyLister(time.Minute)
	old, err := l.List(ctx, "pc-1", c)
	if err != nil {
		t.Fatal(err)
	}
	// A delete answered now: the deleting owner's look asks for a list
	// sent since; everyone else's is served the cached one.
	deletedAt := time.Now()
	if _, err := l.List(ctx, "pc-1", c); err != nil || n.Load() != 1 {
		t.Fatalf("another owner's look after a delete: %d requests, %v; want the cached list (1 request)", n.Load(), err)
	}
	fresh, err := l.ListSince(ctx, "pc-1", c, deletedAt)
	if err != nil || n.Load() != 2 {
		t.Fatalf("the deleting owner's look: %d requests, %v; want a new list (2 requests)", n.Load(), err)
	}
	if old.Sent().After(deletedAt) || fresh.Sent().Before(deletedAt) {
		t.Errorf("lists sent at %s and %s, around a delete answered at %s", old.Sent(), fresh.Sent(), deletedAt)
	}
	// Every later look shares that list.
	for range 2 {
		if _, err := l.ListSince(ctx, "pc-1", c, deletedAt); err != nil || n.Load() != 2 {
			t.Fatalf("a look after the new list: %d requests, %v; want 2", n.Load(), err)
		}
	}
}

// Every deleting resource asks which deployment its client reaches, twice
// per delete: one answer serves them all for a few seconds.
func TestOneAnswerOfTheDeploymentIDServesItsClientForItsTTL(t *testing.T) {
	var n atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v2/buildinfo", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, codersdk.BuildInfoResponse{DeploymentID: fmt.Sprint("deployment-", n.Add(1))})
	})
	_, c := newServer(t, mux)
	for range 10 {
		if id, err := c.DeploymentID(context.Background()); err != nil || id != "deployment-1" {
			t.Fatalf("DeploymentID = %q, %v; want deployment-1", id, err)
		}
	}
	clock := &fakeClock{t: time.Now().Add(deploymentTTL)}
	c.deployment.now = clock.now
	if id, err := c.DeploymentID(context.Background()); err != nil || id != "deployment-2" {
		t.Errorf("DeploymentID past its TTL = %q, %v; want Coder asked again (deployment-2)", id, err)
	}
}

// Coder answers a key list by who asks, not by which ProviderConfig or
// tenant the client is for: those share one list, and nothing else does.
func TestClientsOfOneCoderAndCredentialShareAKeyList(t *testing.T) {
	base := Config{URL: "https://coder.example.com", Token: "token-a", Tenant: "team-a", Timeout: time.Second}
	same := base
	same.URL, same.Tenant, same.Timeout, same.MaxInFlight = "https://coder.example.com/", "team-b", time.Minute, 3
	if ListScope(base) != ListScope(same) {
		t.Error("two tenants' clients of one Coder and token have lists of their own")
	}
	for name, change := range map[string]func(*Config){
		"another token": func(c *Config) { c.Token = "token-b" },
		"another Coder": func(c *Config) { c.URL = "https://other.example.com" },
		"another CA":    func(c *Config) { c.CABundle = []byte("pem") },
		"no TLS checks": func(c *Config) { c.InsecureSkipVerify = true },
	} {
		other := base
		change(&other)
		if ListScope(other) == ListScope(base) {
			t.Errorf("%s shares the key list", name)
		}
	}
	if strings.Contains(ListScope(base), base.Token) {
		t.Error("the scope carries the token")
	}
}
