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

package ports

import (
	"net"
	"strconv"
	"testing"
)

// TestFreePortsAreDistinctAndListenable asks for more ports than a kernel
// that reused a closed listener's port at once would hand out distinctly,
// and listens on each.
func TestFreePortsAreDistinctAndListenable(t *testing.T) {
	got, err := Free(32)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 32 {
		t.Fatalf("Free(32) returned %d ports", len(got))
	}
	seen := map[int]bool{}
	for _, p := range got {
		if seen[p] {
			t.Fatalf("port %d returned twice in %v", p, got)
		}
		seen[p] = true
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			t.Fatalf("cannot listen on the free port %d: %v", p, err)
		}
		_ = l.Close()
	}
}

// TestFreePortsLieBelowTheEphemeralRange holds the reason the package
// exists: a port from the ephemeral range can be taken by any outgoing
// connection between the pick and the bind.
func TestFreePortsLieBelowTheEphemeralRange(t *testing.T) {
	low, ok := ephemeralLow()
	if !ok {
		t.Skipf("%s cannot be read or leaves no room below it; Free uses the kernel's choice here", ephemeralRange)
	}
	got, err := Free(64)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range got {
		if p < lowest || p >= low {
			t.Fatalf("port %d is outside [%d, %d)", p, lowest, low)
		}
	}
}

func TestParseLowReadsTheRangesFirstPort(t *testing.T) {
	cases := map[string]struct {
		in     string
		want   int
		wantOK bool
	}{
		"Linux's default":             {in: "32768\t60999\n", want: 32768, wantOK: true},
		"a widened range leaves room": {in: "15000 65000", want: 15000, wantOK: true},
		"no room below the range":     {in: "10500 65000"},
		"garbage":                     {in: "not a range"},
		"empty":                       {in: ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, ok := parseLow(tc.in)
			if got != tc.want || ok != tc.wantOK {
				t.Fatalf("parseLow(%q) = %d, %t; want %d, %t", tc.in, got, ok, tc.want, tc.wantOK)
			}
		})
	}
}
