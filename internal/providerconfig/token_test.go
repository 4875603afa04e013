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

package providerconfig

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
)

func TestTokenConditionWarnsBeforeTheTokenLapses(t *testing.T) {
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	const day = 24 * time.Hour
	token := func(left, lifetime time.Duration) Token {
		return Token{ExpiresAt: now.Add(left), Lifetime: lifetime}
	}
	session := func(left, lifetime time.Duration) Token {
		return Token{ExpiresAt: now.Add(left), Lifetime: lifetime, Session: true}
	}
	type want struct {
		Status  corev1.ConditionStatus
		Reason  xpv2.ConditionReason
		Message string // a substring
		Lapses  bool
	}
	cases := map[string]struct {
		reason string
		token  Token
		now    time.Time
		want   want
	}{
		"LongLivedToken": {
			reason: "A 90-day token with 30 days left is fine and says when it warns.",
			token:  token(30*day, 90*day), now: now,
			want: want{Status: corev1.ConditionTrue, Reason: ReasonTokenValid, Message: "expires at 2027-01-01T12:00:00Z by Coder's clock; this condition turns False 7d0h before", Lapses: true},
		},
		"LongLivedTokenWithinAWeek": {
			reason: "A 90-day token with 6 days left warns: 7 days is shorter than a quarter of its lifetime.",
			token:  token(6*day+3*time.Hour, 90*day), now: now,
			want: want{Status: corev1.ConditionFalse, Reason: ReasonTokenExpiresSoon, Message: "in 6d3h by Coder's clock: create a new token", Lapses: true},
		},
		"LongLivedTokenAtTheWarning": {
			reason: "Exactly 7 days left is within the warning.",
			token:  token(7*day, 90*day), now: now,
			want: want{Status: corev1.ConditionFalse, Reason: ReasonTokenExpiresSoon, Message: "in 7d0h", Lapses: true},
		},
		"DefaultTokenNew": {
			reason: "A token of Coder's default 7-day lifetime does not warn on its first days: its warning is a quarter of its lifetime.",
			token:  token(5*day, 7*day), now: now,
			want: want{Status: corev1.ConditionTrue, Reason: ReasonTokenValid, Message: "turns False 1d18h before", Lapses: true},
		},
		"DefaultTokenLastQuarter": {
			reason: "A 7-day token warns in its last 42 hours.",
			token:  token(41*time.Hour, 7*day), now: now,
			want: want{Status: corev1.ConditionFalse, Reason: ReasonTokenExpiresSoon, Message: "in 1d17h", Lapses: true},
		},
		"Expired": {
			reason: "Coder's clock past the expiry: the token no longer works.",
			token:  token(-time.Minute, 90*day), now: now,
			want: want{Status: corev1.ConditionFalse, Reason: ReasonTokenExpired, Message: "expired at 2026-12-02T11:59:00Z", Lapses: true},
		},
		"ExpiresNow": {
			reason: "An expiry equal to Coder's now has lapsed.",
			token:  token(0, 90*day), now: now,
			want: want{Status: corev1.ConditionFalse, Reason: ReasonTokenExpired, Lapses: true},
		},
		"SessionJustExtended": {
			reason: "A login session just used has its whole lifetime left: Coder extends it, nothing lapses.",
			token:  session(24*time.Hour, 24*time.Hour), now: now,
			want: want{Status: corev1.ConditionTrue, Reason: ReasonTokenRefreshed, Message: "a login session, which Coder extends"},
		},
		"SessionWithinItsHour": {
			reason: "Coder extends a session only an hour after the last extension: 23h10m left of 24h is still extended.",
			token:  session(23*time.Hour+10*time.Minute, 24*time.Hour), now: now,
			want: want{Status: corev1.ConditionTrue, Reason: ReasonTokenRefreshed},
		},
		"SessionNotExtended": {
			reason: "A session just used with 5 of its 24 hours left is not extended (the deployment disables it): it lapses like a token and warns in its last quarter.",
			token:  session(5*time.Hour, 24*time.Hour), now: now,
			want: want{Status: corev1.ConditionFalse, Reason: ReasonTokenExpiresSoon, Message: "in 5h", Lapses: true},
		},
		"SessionNotExtendedYetEarly": {
			reason: "A session that is not extended, with 20 of 24 hours left, is fine for now.",
			token:  session(20*time.Hour, 24*time.Hour), now: now,
			want: want{Status: corev1.ConditionTrue, Reason: ReasonTokenValid, Lapses: true},
		},
		"SessionExpired": {
			reason: "A session past its expiry is expired, however long its lifetime.",
			token:  session(-time.Second, 0), now: now,
			want: want{Status: corev1.ConditionFalse, Reason: ReasonTokenExpired, Lapses: true},
		},
		"ClockUnknown": {
			reason: "Without Coder's clock the expiry cannot be compared: Unknown, but the expiry is still reported.",
			token:  token(30*day, 90*day),
			want:   want{Status: corev1.ConditionUnknown, Reason: ReasonTokenExpiryUnknown, Message: "Coder's clock, which is not known", Lapses: true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := TokenExpiry(tc.token, tc.now)
			c := got.Condition
			if diff := cmp.Diff(tc.want, want{Status: c.Status, Reason: c.Reason, Message: tc.want.Message, Lapses: !got.Lapses.IsZero()}); diff != "" {
				t.Errorf("%s\nTokenExpiry: -want, +got:\n%s\nmessage: %s", tc.reason, diff, c.Message)
			}
			if c.Type != TypeToken || !strings.Contains(c.Message, tc.want.Message) {
				t.Errorf("%s\nTokenExpiry: type %q, message %q; want type %q, a message containing %q", tc.reason, c.Type, c.Message, TypeToken, tc.want.Message)
			}
			if !got.Lapses.IsZero() && !got.Lapses.Equal(tc.token.ExpiresAt) {
				t.Errorf("%s\nTokenExpiry: lapses %s, want the token's expiry %s", tc.reason, got.Lapses, tc.token.ExpiresAt)
			}
		})
	}
}

func TestTokenConditionIsUnknownWhenCoderDoesNotSay(t *testing.T) {
	c := TokenUnknown(errors.New("GET /api/v2/users/me/keys/{keyid}: 404 Not Found"))
	if c.Type != TypeToken || c.Status != corev1.ConditionUnknown || c.Reason != ReasonTokenExpiryUnknown ||
		c.Message != "cannot read when the session token expires: GET /api/v2/users/me/keys/{keyid}: 404 Not Found" {
		t.Errorf("TokenUnknown: %+v", c)
	}
}
