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
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"slices"

	aibridgeutils "github.com/coder/coder/v2/aibridge/utils"
	"github.com/coder/coder/v2/codersdk"
	"github.com/google/uuid"
	"k8s.io/utils/ptr"

	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
)

// keyFingerprintDomain separates the fingerprint of one API key from the
// credentials fingerprint and any other use of the fingerprint key.
const keyFingerprintDomain = "provider-coder/aiprovider/api-key/v1"

// KeyFingerprint is an HMAC-SHA256 of one API key, keyed and salted with
// the object's UID like Fingerprint, so status can say which of Coder's
// key ids holds which key without anyone who reads it being able to test
// a guessed key.
func KeyFingerprint(key []byte, uid, apiKey string) string {
	h := hmac.New(sha256.New, key)
	writeCredentials(h, keyFingerprintDomain, uid, Credentials{APIKeys: []string{apiKey}})
	return FingerprintPrefix + hex.EncodeToString(h.Sum(nil))
}

// KeyFingerprints fingerprints each of keys, in their order.
func KeyFingerprints(key []byte, uid string, keys []string) []string {
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, KeyFingerprint(key, uid, k))
	}
	return out
}

// A KeyPlan is the key list of one PATCH, in the spec's order: each key of
// the spec whose fingerprint matches a key Coder still holds under an id
// this resource recorded is kept by that id; every other one is sent as
// plaintext. Coder deletes the keys the list leaves out.
//
// Coder lists a provider's keys, and its AI Gateway tries them, by creation
// time, then id (GetAIProviderKeysByProviderID: ORDER BY created_at, id).
// A kept key keeps its time, and keys one request adds share one time
// (insertAIProviderKeys), so after the PATCH the kept keys come first in
// the order Coder already had them, then the new ones in an order Coder
// picks (their random ids). Coder's API sets no position, so the spec's
// order holds only when the new keys are its last ones. Sending kept keys
// again would not put them back in place either when two or more keys are
// new, and would cost them their cooldowns, which is what keeping them is for.
type KeyPlan struct {
	Mutations []codersdk.AIProviderKeyMutation
	// Kept are the keys kept by id, with their fingerprints.
	Kept []common.AppliedAPIKey
	// Added are the indexes in the request's APIKeys of the keys sent.
	Added []int
}

// PlanKeys builds the key list that makes Coder hold exactly want's keys,
// keeping every key it can by id.
func PlanKeys(want Desired, got []codersdk.AIProviderKey, applied Applied) KeyPlan {
	known := keptCandidates(got, applied)
	plan := KeyPlan{Mutations: make([]codersdk.AIProviderKeyMutation, 0, len(want.Request.APIKeys))}
	for i, plain := range want.Request.APIKeys {
		fp := fingerprintAt(want, i)
		if ids := known[fp]; fp != "" && len(ids) > 0 {
			known[fp] = ids[1:]
			plan.Mutations = append(plan.Mutations, codersdk.AIProviderKeyMutation{ID: ptr.To(ids[0])})
			plan.Kept = append(plan.Kept, common.AppliedAPIKey{ID: ids[0].String(), Fingerprint: fp})
			continue
		}
		plan.Mutations = append(plan.Mutations, codersdk.AIProviderKeyMutation{APIKey: ptr.To(plain)})
		plan.Added = append(plan.Added, i)
	}
	return plan
}

// keptCandidates are the ids that may be kept, by fingerprint: those Coder
// still holds that this resource recorded both among its applied ids and
// with a fingerprint. An id someone else added has neither, so it is
// dropped.
func keptCandidates(got []codersdk.AIProviderKey, applied Applied) map[string][]uuid.UUID {
	inCoder := map[string]bool{}
	for _, k := range got {
		inCoder[k.ID.String()] = true
	}
	out := map[string][]uuid.UUID{}
	for _, k := range applied.Keys {
		id, err := uuid.Parse(k.ID)
		if err != nil || k.Fingerprint == "" || !inCoder[id.String()] || !slices.Contains(applied.KeyIDs, k.ID) {
			continue
		}
		out[k.Fingerprint] = append(out[k.Fingerprint], id)
	}
	return out
}

func fingerprintAt(want Desired, i int) string {
	if len(want.APIKeyFingerprints) != len(want.Request.APIKeys) {
		return ""
	}
	return want.APIKeyFingerprints[i]
}

// AppliedKeys pairs the key ids Coder reports after a write with the
// fingerprints of the keys it holds under them: a kept key's is known; a
// new id gets the fingerprint of a key the write added only when nothing
// else fits. Coder answers with the kept and the new ids but not which
// plaintext became which id, and orders the new ones by their random ids.
// So a new id is paired when it is the only one and the write added one
// key, or when its masked value (aibridge's MaskSecret, which Coder
// reports) is the mask of exactly one added key and no other new id has
// it. Any other id stays without a fingerprint, and is sent again at the
// next change. A wrong pair could later keep, by id, a key the spec no
// longer has; pairing only what is certain rules that out. When the new
// ids are not as many as the keys added, someone changed the keys at the
// same time, and none is paired.
func AppliedKeys(want Desired, plan KeyPlan, got []codersdk.AIProviderKey) []common.AppliedAPIKey {
	kept := map[string]string{}
	for _, k := range plan.Kept {
		kept[k.ID] = k.Fingerprint
	}
	var fresh []codersdk.AIProviderKey
	for _, k := range got {
		if _, ok := kept[k.ID.String()]; !ok {
			fresh = append(fresh, k)
		}
	}
	paired := pairNew(want, plan.Added, fresh)
	var out []common.AppliedAPIKey
	for _, k := range got {
		id := k.ID.String()
		fp, ok := kept[id]
		if !ok {
			fp, ok = paired[id]
		}
		if ok && fp != "" {
			out = append(out, common.AppliedAPIKey{ID: id, Fingerprint: fp})
		}
	}
	return out
}

// pairNew maps new key ids to the fingerprints of the added keys, as
// AppliedKeys says.
func pairNew(want Desired, added []int, fresh []codersdk.AIProviderKey) map[string]string {
	out := map[string]string{}
	if len(fresh) != len(added) || len(added) == 0 {
		return out
	}
	if len(added) == 1 {
		out[fresh[0].ID.String()] = fingerprintAt(want, added[0])
		return out
	}
	byMask := map[string][]int{}
	for _, i := range added {
		m := aibridgeutils.MaskSecret(want.Request.APIKeys[i])
		byMask[m] = append(byMask[m], i)
	}
	freshByMask := map[string][]string{}
	for _, k := range fresh {
		freshByMask[k.Masked] = append(freshByMask[k.Masked], k.ID.String())
	}
	for m, is := range byMask {
		if ids := freshByMask[m]; len(is) == 1 && len(ids) == 1 {
			out[ids[0]] = fingerprintAt(want, is[0])
		}
	}
	return out
}

// UpgradeKeys pairs applied key ids that have no fingerprint yet, as a
// status an earlier release wrote has none, with the fingerprints of the
// spec's keys, so that the next change keeps them by id. It does so only
// when the credentials are the ones last sent and Coder holds exactly the
// ids reported then: Coder then holds exactly the spec's keys, and only
// which id is which is unknown, which AppliedKeys's rules settle without
// guessing. ok reports whether it paired any.
func UpgradeKeys(applied Applied, want Desired, got codersdk.AIProvider) (Applied, bool) {
	if !AcceptsAPIKeys(want.Request) || applied.Fingerprint != want.Fingerprint ||
		len(applied.Keys) >= len(got.APIKeys) || !sameSet(keyIDs(got.APIKeys), applied.KeyIDs) {
		return applied, false
	}
	plan := PlanKeys(want, got.APIKeys, applied)
	keys := AppliedKeys(want, plan, got.APIKeys)
	if len(keys) <= len(plan.Kept) {
		return applied, false
	}
	applied.Keys = keys
	return applied, true
}

// CreatePlan is the KeyPlan of a create, which sends every key.
func CreatePlan(want Desired) KeyPlan {
	var plan KeyPlan
	for i := range want.Request.APIKeys {
		plan.Added = append(plan.Added, i)
	}
	return plan
}

// recordKeys writes to status the key ids Coder reports after a write that
// sent the key list of plan, and the fingerprints of those it can pair.
func recordKeys(o *common.AIProviderObservation, want Desired, plan KeyPlan, got []codersdk.AIProviderKey) {
	o.AppliedAPIKeyIDs = keyIDs(got)
	o.AppliedAPIKeys = AppliedKeys(want, plan, got)
}
