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

package aiprovider

import (
	"context"
	"fmt"
	"strings"

	"github.com/coder/coder/v2/codersdk"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"

	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
)

// ReasonEnvSeedUnchecked is the event reason when a PATCH changes fields
// Coder's env seeding hashes although Coder would not say whether it seeds
// the provider.
const ReasonEnvSeedUnchecked event.Reason = "EnvSeedUnchecked"

const (
	errSeedCheck = "cannot tell whether Coder seeds the provider from its environment"
	// errFmtSeeded names the provider, the variables, the fields refused.
	errFmtSeeded = "provider %q is seeded from %s env vars on the Coder deployment; changing its %s through Coder's API makes coderd refuse to start, " +
		"so they were not changed: change the env vars to match the spec, or remove them and restart Coder to let this resource manage the provider"
	msgFmtUnchecked = "Changing the %s of provider %q although Coder would not show whether env vars seed it (%s); " +
		"if CODER_AI_GATEWAY_PROVIDER_<N>_* or CODER_AIBRIDGE_* env vars seed it, coderd refuses to start until they match"
)

// A SeedGuard is a PATCH as it may go to a provider Coder seeds from its
// environment. At every start coderd hashes such a provider's type, base
// URL, Bedrock region, API keys and Bedrock access key pair, and refuses to
// start when the hash no longer matches the environment
// (coderd/ai_providers_migrate.go, canonical and SeedAIProvidersFromEnv).
// Display name, icon, enabled and the other Bedrock settings are not
// hashed, and may change.
type SeedGuard struct {
	// Name is the provider's name in Coder, by which Coder seeds it.
	Name string
	// Fields names the hashed fields the PATCH changes, as the spec does.
	Fields []string
	// Safe is the PATCH without them.
	Safe codersdk.UpdateAIProviderRequest
}

// guardSeed finds the fields of d's PATCH that coderd hashes.
func guardSeed(d Drift, got codersdk.AIProvider) SeedGuard {
	p := d.Patch
	if p.IsEmpty() {
		return SeedGuard{}
	}
	g := SeedGuard{Name: got.Name, Safe: p}
	if p.BaseURL != nil && *p.BaseURL != got.BaseURL {
		g.Fields = append(g.Fields, "baseURL")
		g.Safe.BaseURL = nil
	}
	if p.Settings != nil && p.Settings.Bedrock != nil {
		g.guardBedrock(*p.Settings.Bedrock, got.Settings.Bedrock)
	}
	if p.APIKeys != nil && (len(d.Keys.Added) > 0 || len(d.Keys.Kept) < len(got.APIKeys)) {
		g.Fields = append(g.Fields, "API keys")
		g.Safe.APIKeys = nil
	}
	return g
}

// guardBedrock keeps from Bedrock settings what coderd does not hash: the
// region stays Coder's, credentials are not sent (nil keeps Coder's), and
// settings that then change nothing are not sent at all.
func (g *SeedGuard) guardBedrock(s codersdk.AIProviderBedrockSettings, got *codersdk.AIProviderBedrockSettings) {
	if got == nil {
		// Settings added to a provider without: its canonical type and
		// keys hash change too.
		g.Fields = append(g.Fields, "bedrock settings")
		g.Safe.Settings = nil
		return
	}
	if s.Region != got.Region {
		g.Fields = append(g.Fields, "bedrock region")
		s.Region = got.Region
	}
	if s.AccessKey != nil || s.AccessKeySecret != nil {
		g.Fields = append(g.Fields, "bedrock access key pair")
		s.AccessKey, s.AccessKeySecret = nil, nil
	}
	g.Safe.Settings = &codersdk.AIProviderSettings{Bedrock: &s}
	if sameBedrock(s, *got) {
		g.Safe.Settings = nil
	}
}

// GuardSeeded returns d as it may be sent, given what Coder says it seeds:
// when it seeds the provider, without the fields coderd hashes, which are
// then explained in Unfixable. unchecked is true when d changes such fields
// and Coder would not say what it seeds: d is sent as it is, since a
// provider Coder does not seed is the rule and every other PATCH would
// otherwise stop.
func GuardSeeded(d Drift, seeded coder.EnvSeeded) (out Drift, unchecked bool) {
	if len(d.Seeded.Fields) == 0 {
		return d, false
	}
	if seeded.Unknown != "" {
		return d, true
	}
	vars, ok := seeded.Names[d.Seeded.Name]
	if !ok {
		return d, false
	}
	sent := d.Patch
	d.Patch = d.Seeded.Safe
	if sent.APIKeys != nil && d.Patch.APIKeys == nil {
		// Coder keeps its keys: no applied key ids, nor, unless the
		// Bedrock pair carries them, applied credentials.
		d.SendsAPIKeys, d.Keys = false, KeyPlan{}
		d.SendsCredentials = d.SendsCredentials && carriesPair(sent)
	}
	if carriesPair(sent) && !carriesPair(d.Patch) {
		d.SendsCredentials = false
	}
	d.Unfixable = append(d.Unfixable, fmt.Sprintf(errFmtSeeded, d.Seeded.Name, vars, joinAnd(d.Seeded.Fields)))
	d.Seeded = SeedGuard{}
	return d, false
}

// guardSeeded asks Coder, only when d changes fields its env seeding
// hashes, which providers it seeds, and applies GuardSeeded.
func (e *external) guardSeeded(ctx context.Context, p Resource, d Drift) (Drift, error) {
	if len(d.Seeded.Fields) == 0 {
		return d, nil
	}
	seeded, err := e.coder.EnvSeededProviders(ctx)
	if err != nil {
		return d, errors.Wrap(err, errSeedCheck)
	}
	out, unchecked := GuardSeeded(d, seeded)
	if unchecked {
		msg := fmt.Sprintf(msgFmtUnchecked, joinAnd(d.Seeded.Fields), d.Seeded.Name, seeded.Unknown)
		e.record.Event(p, event.Warning(ReasonEnvSeedUnchecked, errors.New(msg)))
	}
	return out, nil
}

// carriesPair reports whether p sends a Bedrock access key pair.
func carriesPair(p codersdk.UpdateAIProviderRequest) bool {
	return p.Settings != nil && p.Settings.Bedrock != nil && p.Settings.Bedrock.AccessKey != nil
}

// joinAnd joins fields as a sentence lists them: "a, b and c".
func joinAnd(fields []string) string {
	if len(fields) < 2 {
		return strings.Join(fields, "")
	}
	return strings.Join(fields[:len(fields)-1], ", ") + " and " + fields[len(fields)-1]
}
