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

package config

import (
	"reflect"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/crossplane-contrib/provider-coder/internal/metrics"
	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
)

// configStates is what the ProviderConfig reconcilers of every kind remember
// between reconciles, per ProviderConfig. It lives in memory: a restart
// costs one more check of Coder and restarts the unreachable clock, which
// only lengthens a bounded wait.
type configStates struct {
	mu sync.Mutex
	m  map[providerconfig.Ref]*configState
}

type configState struct {
	// check is the last answer from Coder, reused while younger than the
	// poll interval and its inputs are unchanged.
	check *coderCheck
	// unreachableSince is when Coder stopped answering a ProviderConfig
	// being deleted; zero while it answers.
	unreachableSince time.Time
	// holding: the ProviderConfig holds its deletion now, and grace: in
	// its grace, near the hold's bound (for the gauges).
	holding, grace bool
	// sweeps is the deployment the ProviderConfig last could sweep, empty
	// while it could not (see readyFor).
	sweeps string
	// ready is the Ready condition as last set, and tokenLapses when the
	// session token stops working (zero: Coder extends it, or unknown):
	// for the gauges.
	ready       xpv2.Condition
	tokenLapses time.Time
}

// at returns the state of ref, creating it; the caller holds mu.
func (m *configStates) at(ref providerconfig.Ref) *configState {
	r, ok := m.m[ref]
	if !ok {
		r = &configState{}
		m.m[ref] = r
	}
	return r
}

// unreadyRecheck bounds how long a failed check is reused: a ProviderConfig
// that is not Ready is requeued this often, and when Coder answers again it
// must turn Ready (and trigger a sweep) within seconds, not after a poll.
const unreadyRecheck = 10 * time.Second

// check returns the last check of ref if it was made for key less than
// maxAge ago (unreadyRecheck for a check that found it not Ready).
func (m *configStates) lastCheck(ref providerconfig.Ref, key coderCheckKey, now time.Time, maxAge time.Duration) (coderCheck, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.at(ref).check
	if c != nil && c.condition.Status != corev1.ConditionTrue {
		maxAge = min(maxAge, unreadyRecheck)
	}
	if c == nil || !reflect.DeepEqual(c.key, key) || now.Sub(c.at) >= maxAge {
		return coderCheck{}, false
	}
	return *c, true
}

func (m *configStates) putCheck(ref providerconfig.Ref, c coderCheck) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.at(ref).check = &c
}

// unreachableSince returns since when Coder has not answered for ref,
// starting the clock at now.
func (m *configStates) unreachableSince(ref providerconfig.Ref, now time.Time) time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.at(ref)
	if r.unreachableSince.IsZero() {
		r.unreachableSince = now
	}
	return r.unreachableSince
}

// reachable stops the unreachable clock of ref.
func (m *configStates) reachable(ref providerconfig.Ref) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.at(ref).unreachableSince = time.Time{}
}

// readyFor records the deployment ref can sweep now ("" for none) and
// reports whether that is a deployment it could not sweep before: it turned
// Ready (also the first time after a restart, or when Coder answers again),
// moved to another deployment, or had sweeping turned on. Abandoned records
// of that deployment can be swept at once rather than at the next interval.
func (m *configStates) readyFor(ref providerconfig.Ref, deployment string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.at(ref)
	changed := deployment != "" && deployment != r.sweeps
	r.sweeps = deployment
	return changed
}

func (m *configStates) setHolding(ref providerconfig.Ref, holding, grace bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.at(ref)
	r.holding, r.grace = holding, holding && grace
	m.publishHolding()
}

// forget drops everything configState of a ProviderConfig that is gone.
func (m *configStates) forget(ref providerconfig.Ref) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.m, ref)
	m.publishHolding()
	m.publishObserved()
}

// observed records the Ready condition of ref and when its token lapses.
func (m *configStates) observed(ref providerconfig.Ref, ready xpv2.Condition, tokenLapses time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.at(ref)
	r.ready, r.tokenLapses = ready, tokenLapses
	m.publishObserved()
}

// holdObserved records the Ready condition of ref while it holds.
func (m *configStates) holdObserved(ref providerconfig.Ref, ready xpv2.Condition) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.at(ref).ready = ready
	m.publishObserved()
}

// publishObserved sets the readiness gauge and, per scope, the earliest
// token expiry; the caller holds mu.
func (m *configStates) publishObserved() {
	n := map[metrics.Readiness]int{}
	lapses := map[string]time.Time{metrics.ScopeCluster: {}, metrics.ScopeNamespaced: {}}
	for ref, r := range m.m {
		if r.ready.Type != "" {
			n[metrics.Readiness{Ready: string(r.ready.Status), Reason: string(r.ready.Reason)}]++
		}
		scope := metrics.ScopeCluster
		if ref.Namespace != "" {
			scope = metrics.ScopeNamespaced
		}
		if t := r.tokenLapses; !t.IsZero() && (lapses[scope].IsZero() || t.Before(lapses[scope])) {
			lapses[scope] = t
		}
	}
	metrics.SetProviderConfigs(n)
	for scope, t := range lapses {
		metrics.SetTokenExpiry(scope, t)
	}
}

// ReadyReasons are the Ready conditions a ProviderConfig that is not being
// deleted can have (a deleting one's reasons are the hold's).
func ReadyReasons() []xpv2.Condition {
	ready := xpv2.Available()
	ready.Reason = providerconfig.ReasonConnected
	out := []xpv2.Condition{ready}
	for _, r := range []xpv2.ConditionReason{providerconfig.ReasonCredentialsUnavailable, providerconfig.ReasonCoderUnreachable,
		providerconfig.ReasonUnauthorized, providerconfig.ReasonMissingPermissions} {
		c := xpv2.Unavailable()
		c.Reason = r
		out = append(out, c)
	}
	return out
}

// publishHolding sets the holding gauge; the caller holds mu.
func (m *configStates) publishHolding() {
	n, grace := 0, 0
	for _, r := range m.m {
		if r.holding {
			n++
		}
		if r.grace {
			grace++
		}
	}
	metrics.SetHolding(n, grace)
}

// sweepsFor is the deployment whose cleanup records pc can sweep after the
// check c, as the sweep chooses its ProviderConfigs: Ready, sweep allowed.
func sweepsFor(pc providerconfig.Object, c coderCheck) string {
	if c.condition.Status != corev1.ConditionTrue || !providerconfig.ConnectionOf(pc).Sweep {
		return ""
	}
	return c.deploymentID
}

// A coderCheck is the outcome of asking Coder about a ProviderConfig.
type coderCheck struct {
	key       coderCheckKey
	at        time.Time
	condition xpv2.Condition
	// aiGateway is the AIGateway condition; zero when Coder did not get
	// as far as the entitlements (the last one shown stays).
	aiGateway xpv2.Condition
	// token is the Token condition and when the token lapses; zero when
	// Coder did not get as far as the token's user.
	token providerconfig.TokenState
	// permissions is the CoderPermissions condition; zero when Coder did
	// not get as far as the token's user.
	permissions  xpv2.Condition
	deploymentID string
	version      string
}

// coderCheckKey is what a coderCheck depends on: the spec and the credentials.
type coderCheckKey struct {
	generation int64
	client     string
}
