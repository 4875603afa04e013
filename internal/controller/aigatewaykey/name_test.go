package aigatewaykey

import (
	"regexp"
	"strings"
	"testing"
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
