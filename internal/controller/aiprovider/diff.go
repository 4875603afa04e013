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
	"cmp"
	"fmt"
	"slices"

	"github.com/coder/coder/v2/codersdk"
	"k8s.io/utils/ptr"

	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
)

// Names of the fields a drift can concern, as the spec names them. They
// appear in the Diff of an observation and in errors; never a value.
const (
	DriftDisplayName        = "displayName"
	DriftIcon               = "icon"
	DriftEnabled            = "enabled"
	DriftBaseURL            = "baseURL"
	DriftBedrock            = "bedrock"
	DriftBedrockCredentials = "bedrock credentials" //nolint:gosec // A field name, not a credential.
	DriftAPIKeys            = "apiKeys"
	DriftType               = "type"
	DriftName               = "name"
)

// Applied is what this resource last wrote to Coder's credentials, as its
// status records it.
type Applied struct {
	// Fingerprint of the credentials last sent.
	Fingerprint string
	// KeyIDs Coder reported right after that.
	KeyIDs []string
	// Keys pair those of KeyIDs that can be told apart with the
	// fingerprint of the key under each (KeyPlan, AppliedKeys).
	Keys []common.AppliedAPIKey
}

// AppliedOf reads Applied from a status.
func AppliedOf(o *common.AIProviderObservation) Applied {
	return Applied{Fingerprint: o.CredentialsFingerprint, KeyIDs: o.AppliedAPIKeyIDs, Keys: o.AppliedAPIKeys}
}

// UpgradeLegacy returns applied with the unkeyed fingerprint an earlier
// release wrote replaced by want's keyed one, when both are of the
// credentials want sends: they were sent already, and are not sent again
// for a change of fingerprint alone. ok reports whether it replaced one.
func UpgradeLegacy(applied Applied, want Desired) (Applied, bool) {
	if !IsLegacyFingerprint(applied.Fingerprint) || applied.Fingerprint != want.LegacyFingerprint {
		return applied, false
	}
	applied.Fingerprint = want.Fingerprint
	return applied, true
}

// A Drift is how Coder differs from the desired state, and the one PATCH
// that puts back what can be put back.
type Drift struct {
	// Fields names every field that differs, in a fixed order.
	Fields []string
	// Patch undoes every difference Coder's API can undo. It is empty when
	// there is none.
	Patch codersdk.UpdateAIProviderRequest
	// SendsAPIKeys is true when Patch replaces the key set; the key ids
	// Coder reports afterwards are the applied ones.
	SendsAPIKeys bool
	// Keys is how Patch's key list was built, when it sends one.
	Keys KeyPlan
	// Seeded is Patch for a provider Coder seeds from its environment.
	Seeded SeedGuard
	// SendsCredentials is true when Patch carries every credential of the
	// spec (API keys or the Bedrock access key pair), so the fingerprint is
	// the applied one afterwards.
	SendsCredentials bool
	// Unfixable explains the differences Coder's API cannot undo.
	Unfixable []string
}

// UpToDate is true when Coder matches the desired state.
func (d Drift) UpToDate() bool { return len(d.Fields) == 0 }

func (d *Drift) add(field string) {
	if !slices.Contains(d.Fields, field) {
		d.Fields = append(d.Fields, field)
	}
}

// Diff compares every field Coder returns with the desired state. API keys
// cannot be read back, so the key list is sent when the fingerprint of the
// Secrets' values differs from the applied one, or when Coder's key ids are
// no longer the ones it reported after the last write (someone added or
// removed a key). The list replaces Coder's whole key set, keeping by id
// every key whose own fingerprint is unchanged (PlanKeys).
func Diff(want Desired, got codersdk.AIProvider, applied Applied) Drift {
	req := want.Request
	var d Drift
	if got.Type != req.Type {
		d.add(DriftType)
		d.Unfixable = append(d.Unfixable, fmt.Sprintf("the provider in Coder has type %q, the spec %q, and a provider's type cannot change", got.Type, req.Type))
	}
	if got.Name != req.Name {
		d.add(DriftName)
		d.Unfixable = append(d.Unfixable, fmt.Sprintf("the provider in Coder is named %q, the spec %q, and a provider's name cannot change", got.Name, req.Name))
	}
	// Coder reports its own name when no display name is stored, and an
	// empty display name clears it: compare what Coder would show, even
	// while the name itself differs (unfixably), so that no PATCH repeats.
	if got.DisplayName != cmp.Or(req.DisplayName, got.Name) {
		d.add(DriftDisplayName)
		d.Patch.DisplayName = ptr.To(req.DisplayName)
	}
	if got.Icon != req.Icon {
		d.add(DriftIcon)
		d.Patch.Icon = ptr.To(req.Icon)
	}
	if got.Enabled != req.Enabled {
		d.add(DriftEnabled)
		d.Patch.Enabled = ptr.To(req.Enabled)
	}
	if got.BaseURL != req.BaseURL {
		d.add(DriftBaseURL)
		d.Patch.BaseURL = ptr.To(req.BaseURL)
	}

	credentialsChanged := want.Fingerprint != applied.Fingerprint
	wb, gb := req.Settings.Bedrock, got.Settings.Bedrock
	switch {
	case wb == nil && gb != nil:
		// A PATCH without Bedrock settings keeps them: codersdk encodes
		// empty settings as JSON null, which decodes to "not sent".
		d.add(DriftBedrock)
		d.Unfixable = append(d.Unfixable, "the provider in Coder has Bedrock settings the spec does not have, and Coder's API cannot remove them: add spec.forProvider.bedrock, or delete the provider in Coder so it is created again")
	case wb != nil:
		differs := gb == nil || !sameBedrock(*wb, *gb)
		if differs || credentialsChanged {
			// Settings are replaced as a whole; omitted (nil) credentials
			// keep the stored ones, and Coder keeps its external id.
			s := *wb
			s.ExternalID = ""
			s.AccessKey, s.AccessKeySecret = nil, nil
			if differs {
				d.add(DriftBedrock)
			}
			if credentialsChanged {
				d.add(DriftBedrockCredentials)
				// Without references the pair is cleared, so Coder falls
				// back to its own AWS identity as the spec says.
				s.AccessKey = cmp.Or(wb.AccessKey, ptr.To(""))
				s.AccessKeySecret = cmp.Or(wb.AccessKeySecret, ptr.To(""))
				d.SendsCredentials = true
			}
			d.Patch.Settings = &codersdk.AIProviderSettings{Bedrock: &s}
		}
	}

	gotIDs := keyIDs(got.APIKeys)
	keysMoved := !sameSet(gotIDs, applied.KeyIDs)
	if AcceptsAPIKeys(req) {
		if keysMoved || credentialsChanged {
			d.Keys = PlanKeys(want, got.APIKeys, applied)
			d.add(DriftAPIKeys)
			muts := slices.Clone(d.Keys.Mutations)
			d.Patch.APIKeys = &muts
			d.SendsAPIKeys, d.SendsCredentials = true, true
		}
	} else if len(gotIDs) > 0 || (credentialsChanged && wb == nil) {
		// No keys belong here; an empty list clears whatever is there and
		// records that Coder holds exactly the spec's (no) credentials.
		d.add(DriftAPIKeys)
		d.Patch.APIKeys = &[]codersdk.AIProviderKeyMutation{}
		d.SendsAPIKeys = true
		d.SendsCredentials = d.SendsCredentials || wb == nil
	}
	d.Seeded = guardSeed(d, got)
	return d
}

// AcceptsAPIKeys is false for providers Coder refuses keys for: Bedrock and
// Copilot, and any provider with Bedrock settings.
func AcceptsAPIKeys(req codersdk.CreateAIProviderRequest) bool {
	return req.Type != codersdk.AIProviderTypeBedrock && req.Type != codersdk.AIProviderTypeCopilot && req.Settings.Bedrock == nil
}

// sameBedrock compares the Bedrock settings Coder reports. An empty protocol
// means invoke-model, so either spelling matches the other.
func sameBedrock(want, got codersdk.AIProviderBedrockSettings) bool {
	return want.Region == got.Region &&
		want.Model == got.Model &&
		want.SmallFastModel == got.SmallFastModel &&
		want.RoleARN == got.RoleARN &&
		want.ResolvedProtocol() == got.ResolvedProtocol()
}

func keyIDs(keys []codersdk.AIProviderKey) []string {
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, k.ID.String())
	}
	return out
}

func sameSet(a, b []string) bool {
	return slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}
