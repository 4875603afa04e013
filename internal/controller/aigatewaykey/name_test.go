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

package aigatewaykey

import (
	"regexp"
	"strings"
	"testing"

	"github.com/google/uuid"
)

var coderKeyName = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

func TestKeyNameIsValidForCoderAndTiedToUID(t *testing.T) {
	const uid = "5f0c7b1e-2d3a-4c5b-9e8f-0123456789ab"
	cases := map[string]struct {
		reason                string
		prefix, ns, name, uid string
		want                  string
	}{
		"Namespaced": {
			reason: "namespace, name and the first 8 hex characters of the UID",
			ns:     "team-a", name: "gateway", uid: uid,
			want: "team-a-gateway-5f0c7b1e",
		},
		"ClusterScoped": {
			reason: "cluster-scoped resources have no namespace part",
			name:   "gateway", uid: uid,
			want: "gateway-5f0c7b1e",
		},
		"Prefix": {
			reason: "the prefix comes first",
			prefix: "gw", ns: "team-a", name: "gateway", uid: uid,
			want: "gw-team-a-gateway-5f0c7b1e",
		},
		"Sanitized": {
			reason: "dots and upper case from Kubernetes names become Coder-safe",
			ns:     "Team.A", name: "my..gateway.v1", uid: uid,
			want: "team-a-my-gateway-v1-5f0c7b1e",
		},
		"LongNamesShortenedNotTheUID": {
			reason: "the longest part is cut first and the UID suffix survives",
			ns:     strings.Repeat("n", 63), name: strings.Repeat("m", 200), uid: uid,
			want: strings.Repeat("n", 27) + "-" + strings.Repeat("m", 27) + "-5f0c7b1e",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := KeyName(tc.prefix, tc.ns, tc.name, tc.uid)
			if got != tc.want {
				t.Errorf("%s\nKeyName(...) = %q, want %q", tc.reason, got, tc.want)
			}
			if len(got) > maxKeyNameLength || !coderKeyName.MatchString(got) {
				t.Errorf("KeyName(...) = %q is not a valid Coder key name", got)
			}
		})
	}
}

func TestKeyNameDiffersPerIncarnation(t *testing.T) {
	a := KeyName("", "ns", "gateway", "aaaaaaaa-0000-0000-0000-000000000000")
	b := KeyName("", "ns", "gateway", "bbbbbbbb-0000-0000-0000-000000000000")
	if a == b {
		t.Fatalf("two incarnations share the Coder key name %q", a)
	}
}

func FuzzKeyNameAlwaysValid(f *testing.F) {
	f.Add("gw", "team-a", "gateway", "5f0c7b1e-2d3a-4c5b-9e8f-0123456789ab")
	f.Add("", "", "-", "")
	f.Fuzz(func(t *testing.T, prefix, ns, name, uid string) {
		if uid == "" {
			uid = "5f0c7b1e"
		}
		got := KeyName(prefix, ns, name, uid)
		if sanitize(uid) == "" {
			return
		}
		if len(got) > maxKeyNameLength || !coderKeyName.MatchString(got) {
			t.Fatalf("KeyName(%q, %q, %q, %q) = %q is not a valid Coder key name", prefix, ns, name, uid, got)
		}
	})
}

func TestRotatedKeyNamesStayTiedToTheUIDAndParseBack(t *testing.T) {
	const uid = "5f0c7b1e-2d3a-4c5b-9e8f-0123456789ab"
	cases := map[string]struct {
		reason           string
		prefix, ns, name string
		n                int
		want             string
	}{
		"FirstKeyUnchanged": {
			reason: "counter 0 is the name keys had before rotation existed",
			ns:     "team-a", name: "gateway", n: 0,
			want: "team-a-gateway-5f0c7b1e",
		},
		"Rotated": {
			reason: "the counter follows the UID characters",
			ns:     "team-a", name: "gateway", n: 12,
			want: "team-a-gateway-5f0c7b1e-r12",
		},
		"NameLooksRotated": {
			reason: "an object whose own name ends in -r2 is still counter 0",
			ns:     "team-a", name: "gw-r2", n: 0,
			want: "team-a-gw-r2-5f0c7b1e",
		},
		"LongNamesMakeRoomForTheCounter": {
			reason: "the readable parts are cut, never the UID or the counter",
			ns:     strings.Repeat("n", 63), name: strings.Repeat("m", 200), n: 345,
			want: strings.Repeat("n", 24) + "-" + strings.Repeat("m", 25) + "-5f0c7b1e-r345",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := RotatedKeyName(tc.prefix, tc.ns, tc.name, uid, tc.n)
			if got != tc.want {
				t.Errorf("%s\nRotatedKeyName(...) = %q, want %q", tc.reason, got, tc.want)
			}
			if len(got) > maxKeyNameLength || !coderKeyName.MatchString(got) {
				t.Errorf("RotatedKeyName(...) = %q is not a valid Coder key name", got)
			}
			n, ok := RotationOf(got, tc.prefix, tc.ns, tc.name, uid)
			if !ok || n != tc.n {
				t.Errorf("RotationOf(%q) = %d, %v; want %d, true", got, n, ok, tc.n)
			}
		})
	}
	for _, other := range []string{
		"team-a-gateway-5f0c7b1f",     // another incarnation
		"team-a-gateway-5f0c7b1f-r1",  // another incarnation, rotated
		"team-a-gateway-5f0c7b1e-r0",  // no such counter
		"team-a-gateway-5f0c7b1e-r01", // not the derived spelling
		"team-a-gateway2-5f0c7b1e-r1", // another object
		"made-by-hand-5f0c7b1e-r1",    // a name of someone else's choosing
	} {
		if n, ok := RotationOf(other, "", "team-a", "gateway", uid); ok {
			t.Errorf("RotationOf(%q) = %d, true; want it not taken for the object's key", other, n)
		}
	}
}

// FuzzRotatedKeyNamesRoundTripAndNeverCollide checks, for any prefix,
// namespace, name, Kubernetes UID and rotation counter: the name is valid
// for Coder; RotationOf reads the counter back; two counters of one object
// never share a name; and an object whose UID differs in the first eight hex
// characters (the ones the name carries) never gets, or claims, the same
// name, whatever its own prefix, namespace, name and counter. UIDs that
// share those eight characters do share names: that is the design's 2^-32
// chance per pair, which the cleanup records' ownership checks cover.
func FuzzRotatedKeyNamesRoundTripAndNeverCollide(f *testing.F) {
	uid := []byte("\x5f\x0c\x7b\x1e\x2d\x3a\x4c\x5b\x9e\x8f\x01\x23\x45\x67\x89\xab")
	other := []byte("\x5f\x0c\x7b\x1f\x2d\x3a\x4c\x5b\x9e\x8f\x01\x23\x45\x67\x89\xab")
	long, longer := strings.Repeat("n", 63), strings.Repeat("m", 200)
	// The table cases above, each against another incarnation.
	for _, s := range []struct {
		prefix, ns, name string
		n                uint32
	}{
		{"", "team-a", "gateway", 0},
		{"", "team-a", "gateway", 12},
		{"", "team-a", "gw-r2", 0},
		{"", long, longer, 345},
		{"gw", "Team.A", "my..gateway.v1", 1},
		{"", "", "-", 999999999},
	} {
		f.Add(s.prefix, s.ns, s.name, uid, s.n, s.prefix, s.ns, s.name, other, s.n+1)
		f.Add(s.prefix, s.ns, s.name, uid, s.n, "", "team-a", "gateway", other, uint32(0))
	}
	// Another object whose name ends in the first one's UID characters.
	f.Add("", "team-a", "gateway", uid, uint32(1), "", "team-a", "gateway-5f0c7b1e", other, uint32(1))
	f.Fuzz(func(t *testing.T, prefix, ns, name string, uidBytes []byte, n uint32, prefix2, ns2, name2 string, uidBytes2 []byte, n2 uint32) {
		// A Kubernetes UID is a UUID; a counter has at most nine digits
		// (a billion rotations).
		u, u2 := uidOf(uidBytes), uidOf(uidBytes2)
		c, c2 := int(n%1e9), int(n2%1e9)
		got := RotatedKeyName(prefix, ns, name, u, c)
		if len(got) > maxKeyNameLength || !coderKeyName.MatchString(got) {
			t.Fatalf("RotatedKeyName(%q, %q, %q, %q, %d) = %q is not a valid Coder key name", prefix, ns, name, u, c, got)
		}
		if back, ok := RotationOf(got, prefix, ns, name, u); !ok || back != c {
			t.Fatalf("RotationOf(%q) = %d, %v; want %d, true", got, back, ok, c)
		}
		if c != c2 && RotatedKeyName(prefix, ns, name, u, c2) == got {
			t.Fatalf("counters %d and %d of one object share the name %q", c, c2, got)
		}
		if u[:8] == u2[:8] {
			return
		}
		if got2 := RotatedKeyName(prefix2, ns2, name2, u2, c2); got2 == got {
			t.Fatalf("UIDs %s and %s give the same name %q", u, u2, got)
		}
		if back, ok := RotationOf(got, prefix2, ns2, name2, u2); ok {
			t.Fatalf("RotationOf(%q) for UID %s = %d, true; the name is UID %s's", got, u2, back, u)
		}
	})
}

func uidOf(b []byte) string {
	var u [16]byte
	copy(u[:], b)
	return uuid.UUID(u).String()
}
