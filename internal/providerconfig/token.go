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
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
)

// TypeToken is the ProviderConfig condition that says how long Coder keeps
// accepting the session token, from Coder's record of the token's API key
// (GET /api/v2/users/me/keys/{keyid}): an operator replaces a token before
// it lapses, not after Ready turns False with Unauthorized.
const TypeToken xpv2.ConditionType = "Token"

// Reasons of the Token condition.
const (
	// ReasonTokenValid: the token's expiry is further away than its warning.
	ReasonTokenValid xpv2.ConditionReason = "Valid"
	// ReasonTokenRefreshed: a login session whose expiry Coder extends
	// each time the provider uses it.
	ReasonTokenRefreshed xpv2.ConditionReason = "Refreshed"
	// ReasonTokenExpiresSoon: the token lapses within its warning.
	ReasonTokenExpiresSoon xpv2.ConditionReason = "ExpiresSoon"
	// ReasonTokenExpired: Coder's clock is past the token's expiry.
	ReasonTokenExpired xpv2.ConditionReason = "Expired"
	// ReasonTokenExpiryUnknown: Coder's record of the token could not be
	// read, or its clock is not known.
	ReasonTokenExpiryUnknown xpv2.ConditionReason = "ExpiryUnknown" //nolint:gosec // A condition reason, not a credential.
)

// TokenWarning is how long before its expiry a token is reported as
// expiring soon, unless a quarter of its lifetime is shorter: Coder's
// default token lifetime is 7 days, and a token should not warn from the
// day it was made.
const TokenWarning = 7 * 24 * time.Hour

// refreshSlack is how far below its lifetime, less the hour Coder waits
// before it extends a session, a session that was just used may be: the
// time between that use and the read of its expiry.
const refreshSlack = 5 * time.Minute

// A Token is Coder's record of a session token's API key.
type Token struct {
	// ExpiresAt is when Coder stops accepting the token, by Coder's clock.
	ExpiresAt time.Time
	// Lifetime is the key's lifetime: a session is extended to now plus
	// Lifetime when used an hour or more after its last extension.
	Lifetime time.Duration
	// Session is true for a login session (password, GitHub, OIDC), which
	// Coder extends on use unless the deployment disables it; false for an
	// API token (coder tokens create), whose lifetime is fixed.
	Session bool
}

// TokenState is the Token condition and when the token lapses.
type TokenState struct {
	Condition xpv2.Condition
	// Lapses is when the token stops working by Coder's clock; zero when
	// Coder extends it on use or its expiry is not known.
	Lapses time.Time
}

// TokenExpiry decides the Token condition of t when Coder's clock reads
// now (zero: not known). A session that was just used and still has more
// than its lifetime less an hour is being extended; one with less is not
// (the deployment disables the refresh) and lapses like a token.
func TokenExpiry(t Token, now time.Time) TokenState {
	at := t.ExpiresAt.UTC().Format(time.RFC3339)
	if now.IsZero() {
		return TokenState{Condition: tokenCondition(corev1.ConditionUnknown, ReasonTokenExpiryUnknown,
			fmt.Sprintf("the session token expires at %s by Coder's clock, which is not known (Coder's answers carry no Date header)", at)), Lapses: t.ExpiresAt}
	}
	left := t.ExpiresAt.Sub(now)
	if t.Session && left > t.Lifetime-time.Hour-refreshSlack && left > 0 {
		return TokenState{Condition: tokenCondition(corev1.ConditionTrue, ReasonTokenRefreshed,
			fmt.Sprintf("the session token is a login session, which Coder extends each time the provider uses it (now until %s); an API token (coder tokens create) has a fixed lifetime", at))}
	}
	warn := min(TokenWarning, t.Lifetime/4)
	switch {
	case left <= 0:
		return TokenState{Condition: tokenCondition(corev1.ConditionFalse, ReasonTokenExpired,
			fmt.Sprintf("the session token expired at %s by Coder's clock: create a new token (coder tokens create) and put it in the credentials Secret", at)), Lapses: t.ExpiresAt}
	case left <= warn:
		return TokenState{Condition: tokenCondition(corev1.ConditionFalse, ReasonTokenExpiresSoon,
			fmt.Sprintf("the session token expires at %s, in %s by Coder's clock: create a new token (coder tokens create) and put it in the credentials Secret before then, or Ready turns False (Unauthorized)", at, roundDuration(left))), Lapses: t.ExpiresAt}
	default:
		return TokenState{Condition: tokenCondition(corev1.ConditionTrue, ReasonTokenValid,
			fmt.Sprintf("the session token expires at %s by Coder's clock; this condition turns False %s before", at, roundDuration(warn))), Lapses: t.ExpiresAt}
	}
}

// TokenUnknown is the Token condition when Coder's record of the token
// could not be read; err is safe to show (internal/clients/coder).
func TokenUnknown(err error) xpv2.Condition {
	return tokenCondition(corev1.ConditionUnknown, ReasonTokenExpiryUnknown, "cannot read when the session token expires: "+err.Error())
}

func tokenCondition(s corev1.ConditionStatus, r xpv2.ConditionReason, msg string) xpv2.Condition {
	return xpv2.Condition{Type: TypeToken, Status: s, Reason: r, Message: msg}
}

// roundDuration prints d in whole days and hours ("6d23h"), or minutes
// under an hour.
func roundDuration(d time.Duration) string {
	const day = 24 * time.Hour
	switch {
	case d >= day:
		return fmt.Sprintf("%dd%dh", d/day, (d%day)/time.Hour)
	case d >= time.Hour:
		return fmt.Sprintf("%dh", d/time.Hour)
	default:
		return fmt.Sprintf("%dm", d/time.Minute)
	}
}
