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

package fakecoder

import (
	"net/url"
	"testing"

	"github.com/coder/coder/v2/codersdk"
	"github.com/google/uuid"
)

func TestAMimickingServerCreatesUnderTheIDsItWasGivenAndListsThemSo(t *testing.T) {
	s := New(Options{})
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	u, err := url.Parse(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	c := codersdk.New(u)
	c.SetSessionToken(s.Token())
	seen := uuid.New()
	s.Mimic(seen)

	first, err := c.CreateAIGatewayKey(t.Context(), codersdk.CreateAIGatewayKeyRequest{Name: "first"})
	if err != nil {
		t.Fatal(err)
	}
	second, err := c.CreateAIGatewayKey(t.Context(), codersdk.CreateAIGatewayKeyRequest{Name: "second"})
	if err != nil {
		t.Fatal(err)
	}
	if first.ID != seen || second.ID == seen {
		t.Fatalf("created %s then %s; want the mimicked id %s once", first.ID, second.ID, seen)
	}
	listed := false
	for _, k := range s.Keys() {
		listed = listed || (k.ID == seen && k.Name == "first")
	}
	if !listed {
		t.Errorf("the keys %+v do not list %s under the name asked for", s.Keys(), seen)
	}
}

func TestAServerThatStopsMimickingCreatesUnderNewIDs(t *testing.T) {
	s := New(Options{})
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	u, err := url.Parse(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	c := codersdk.New(u)
	c.SetSessionToken(s.Token())
	seen := uuid.New()
	s.Mimic(seen)
	s.StopMimicking()

	k, err := c.CreateAIGatewayKey(t.Context(), codersdk.CreateAIGatewayKeyRequest{Name: "after"})
	if err != nil {
		t.Fatal(err)
	}
	if k.ID == seen {
		t.Errorf("created under the mimicked id %s after StopMimicking", seen)
	}
}
