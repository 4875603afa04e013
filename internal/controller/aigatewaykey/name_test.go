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
