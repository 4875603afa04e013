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
	"encoding/json"
	"strings"
	"testing"

	"github.com/coder/coder/v2/codersdk"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"

	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// apiKey is the API key the tests' Secret holds.
const apiKey = "sk-test-plaintext-0001"

// pendingAt is the create-pending annotation of the tests' create attempt.
const pendingAt = "2026-12-01T12:00:00Z"

// liveProvider is an AIProvider that is not being deleted, of Coder name
// name (metadata.name when empty), reading its API key from openai-key.
func liveProvider(name string) *aiv1alpha1.AIProvider {
	p := &aiv1alpha1.AIProvider{ObjectMeta: metav1.ObjectMeta{
		Namespace: "team-a", Name: "openai", UID: testUID,
		Annotations: map[string]string{meta.AnnotationKeyExternalCreatePending: pendingAt},
	}}
	p.Spec.ForProvider.Type = "openai"
	p.Spec.ForProvider.BaseURL = "https://api.openai.com/v1"
	p.Spec.ForProvider.Enabled = ptr.To(true)
	p.Spec.ForProvider.DisplayName = ptr.To("OpenAI")
	if name != "" {
		p.Spec.ForProvider.Name = ptr.To(name)
	}
	p.Spec.ForProvider.APIKeySecretRefs = []common.LocalSecretKeySelector{{Name: "openai-key", Key: "key"}}
	return p
}

func keySecret(value string) *corev1.Secret {
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "openai-key"}, Data: map[string][]byte{"key": []byte(value)}}
}

// assertNoAPIKey fails when the API key appears anywhere in p.
func assertNoAPIKey(t *testing.T, reason string, p *aiv1alpha1.AIProvider) {
	t.Helper()
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), apiKey) {
		t.Errorf("%s\nthe API key appears in the resource: %s", reason, b)
	}
}

// stored is the tests' AIProvider as Kubernetes holds it.
func (f *fixture) stored(t *testing.T) *aiv1alpha1.AIProvider {
	t.Helper()
	p := &aiv1alpha1.AIProvider{}
	if err := f.ext.kube.Get(context.Background(), client.ObjectKey{Namespace: "team-a", Name: "openai"}, p); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCreateProviderSendsTheDesiredSpecAndSetsExternalName(t *testing.T) {
	cases := map[string]struct {
		reason   string
		name     string
		wantName string
	}{
		"NameFromMetadata": {reason: "Without forProvider.name the Coder name is metadata.name.", wantName: "openai"},
		"NameFromSpec":     {reason: "forProvider.name is the Coder name.", name: "shared-openai", wantName: "shared-openai"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, liveProvider(tc.name), keySecret(apiKey))
			p := f.stored(t)
			if _, err := f.ext.Create(context.Background(), p); err != nil {
				t.Fatalf("%s\nCreate: %v", tc.reason, err)
			}
			rows := f.srv.Providers(false)
			if len(rows) != 1 {
				t.Fatalf("%s\nCoder has %d providers, want 1", tc.reason, len(rows))
			}
			row := rows[0]
			type sent struct {
				Name, DisplayName, BaseURL string
				Type                       codersdk.AIProviderType
				Enabled                    bool
				Keys                       []string
			}
			want := sent{Name: tc.wantName, DisplayName: "OpenAI", BaseURL: "https://api.openai.com/v1", Type: "openai", Enabled: true, Keys: []string{apiKey}}
			got := sent{Name: row.Name, DisplayName: row.DisplayName, BaseURL: row.BaseURL, Type: row.Type, Enabled: row.Enabled, Keys: row.PlaintextKeys()}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s\nthe provider in Coder: -want, +got:\n%s", tc.reason, diff)
			}
			if id := meta.GetExternalName(p); id != row.ID.String() {
				t.Errorf("%s\nexternal name %q, want the provider's id %s", tc.reason, id, row.ID)
			}
			// The status Create persists itself: the applied key ids and the
			// fingerprint, so the next Observe does not send the keys again.
			stored := f.stored(t)
			wantApplied := Applied{Fingerprint: Fingerprint(testKey, testUID, Credentials{APIKeys: []string{apiKey}}), KeyIDs: []string{row.APIKeys[0].ID.String()},
				Keys: []common.AppliedAPIKey{{ID: row.APIKeys[0].ID.String(), Fingerprint: KeyFingerprint(testKey, testUID, apiKey)}}}
			if diff := cmp.Diff(wantApplied, AppliedOf(&stored.Status.AtProvider)); diff != "" {
				t.Errorf("%s\npersisted status: -want, +got:\n%s", tc.reason, diff)
			}
			assertNoAPIKey(t, tc.reason, stored)
			assertNoAPIKey(t, tc.reason, p)
		})
	}
}

func TestCreateProviderRefusalIsClassifiedAndMarked(t *testing.T) {
	cases := map[string]struct {
		reason string
		// setup prepares Coder; typ overrides forProvider.type.
		setup     func(t *testing.T, f *fixture)
		typ       common.AIProviderType
		wantClass coder.Class
		wantMsg   string
		// wantSent is whether a create reached Coder.
		wantSent bool
	}{
		"NameTaken": {
			reason:    "A name taken in Coder by a provider this resource does not own is a conflict, and it is not adopted.",
			setup:     func(t *testing.T, f *fixture) { f.createProvider(t, "openai") },
			wantClass: coder.ClassConflict, wantMsg: `the name "openai" is taken in Coder`, wantSent: true,
		},
		"InvalidSpec": {
			reason:    "A spec Coder's own rules refuse is never sent.",
			typ:       "nope",
			wantClass: coder.ClassUnknown, wantMsg: errInvalidSpec,
		},
		"CoderRefuses": {
			reason: "A request Coder answers 400 is invalid.",
			setup: func(t *testing.T, f *fixture) {
				if err := f.srv.SetFault(fakecoder.EndpointProvidersCreate, fakecoder.Fault{Status: 400, Times: 1}); err != nil {
					t.Fatal(err)
				}
			},
			wantClass: coder.ClassInvalid, wantMsg: errCreateProvider, wantSent: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := liveProvider("")
			if tc.typ != "" {
				p.Spec.ForProvider.Type = tc.typ
			}
			f := newFixture(t, p.DeepCopy(), keySecret(apiKey))
			if tc.setup != nil {
				tc.setup(t, f)
			}
			before := f.srv.Requests(fakecoder.EndpointProvidersCreate)
			_, err := f.ext.Create(context.Background(), p)
			if err == nil {
				t.Fatalf("%s\nCreate succeeded, want an error", tc.reason)
			}
			if got := coder.ClassOf(err); got != tc.wantClass {
				t.Errorf("%s\nerror class %q, want %q (error: %v)", tc.reason, got, tc.wantClass, err)
			}
			if !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("%s\nerror %q, want it to say %q", tc.reason, err, tc.wantMsg)
			}
			if sent := f.srv.Requests(fakecoder.EndpointProvidersCreate) > before; sent != tc.wantSent {
				t.Errorf("%s\na create reached Coder: %t, want %t", tc.reason, sent, tc.wantSent)
			}
			if meta.GetExternalName(p) != "" {
				t.Errorf("%s\na refused create set the external name %q", tc.reason, meta.GetExternalName(p))
			}
			assertNoAPIKey(t, tc.reason, p)
			if strings.Contains(err.Error(), apiKey) {
				t.Errorf("%s\nthe error carries the API key", tc.reason)
			}
		})
	}
}

// created makes the tests' provider through Create and returns the
// resource as the next reconcile reads it, external name included.
func (f *fixture) created(t *testing.T) *aiv1alpha1.AIProvider {
	t.Helper()
	p := f.stored(t)
	if _, err := f.ext.Create(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	next := f.stored(t)
	meta.SetExternalName(next, meta.GetExternalName(p))
	return next
}

func TestUpdateProviderSendsOnlyTheDiff(t *testing.T) {
	cases := map[string]struct {
		reason string
		// change changes the spec, the Secret or Coder after the create.
		change func(t *testing.T, f *fixture, p *aiv1alpha1.AIProvider)
		// wantPatches is how many PATCH requests reach Coder.
		wantPatches int
		// wantDisplay is the display name in Coder afterwards.
		wantDisplay string
		// wantKeysSent: the key set was replaced (new key ids in Coder).
		wantKeysSent bool
		wantKey      string
	}{
		"NothingChanged": {
			reason:      "Coder matches the spec: nothing is sent.",
			change:      func(*testing.T, *fixture, *aiv1alpha1.AIProvider) {},
			wantDisplay: "OpenAI", wantKey: apiKey,
		},
		"DisplayNameInSpec": {
			reason: "A changed display name is sent; the unchanged keys are not.",
			change: func(_ *testing.T, _ *fixture, p *aiv1alpha1.AIProvider) {
				p.Spec.ForProvider.DisplayName = ptr.To("OpenAI 2")
			},
			wantPatches: 1, wantDisplay: "OpenAI 2", wantKey: apiKey,
		},
		"DriftInCoder": {
			reason: "A display name changed in Coder behind the provider's back is put back.",
			change: func(t *testing.T, f *fixture, p *aiv1alpha1.AIProvider) {
				if _, err := f.srv.EditProvider(meta.GetExternalName(p), func(r *fakecoder.ProviderRow) { r.DisplayName = "hacked" }); err != nil {
					t.Fatal(err)
				}
			},
			wantPatches: 1, wantDisplay: "OpenAI", wantKey: apiKey,
		},
		"SecretRotated": {
			reason: "A changed API key in the Secret replaces the key set in Coder.",
			change: func(t *testing.T, f *fixture, _ *aiv1alpha1.AIProvider) {
				if err := f.ext.kube.Update(context.Background(), keySecret("sk-test-plaintext-0002")); err != nil {
					t.Fatal(err)
				}
			},
			wantPatches: 1, wantDisplay: "OpenAI", wantKeysSent: true, wantKey: "sk-test-plaintext-0002",
		},
		"LegacyFingerprintOfTheKeySent": {
			reason: "A status from before fingerprints were keyed, of the key Coder has: the keyed fingerprint replaces it, and nothing is sent.",
			change: func(_ *testing.T, _ *fixture, p *aiv1alpha1.AIProvider) {
				p.Status.AtProvider.CredentialsFingerprint = LegacyFingerprint(testUID, Credentials{APIKeys: []string{apiKey}})
				p.Status.AtProvider.AppliedAPIKeys = nil
			},
			wantDisplay: "OpenAI", wantKey: apiKey,
		},
		"LegacyFingerprintOfAnotherKey": {
			reason: "A status from before fingerprints were keyed, of a key the Secret no longer holds: the Secret's key is sent.",
			change: func(_ *testing.T, _ *fixture, p *aiv1alpha1.AIProvider) {
				p.Status.AtProvider.CredentialsFingerprint = LegacyFingerprint(testUID, Credentials{APIKeys: []string{"sk-test-plaintext-0000"}})
				p.Status.AtProvider.AppliedAPIKeys = nil
			},
			wantPatches: 1, wantDisplay: "OpenAI", wantKeysSent: true, wantKey: apiKey,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			f := newFixture(t, liveProvider(""), keySecret(apiKey))
			p := f.created(t)
			keysBefore := p.Status.AtProvider.AppliedAPIKeyIDs
			tc.change(t, f, p)

			obs, err := f.ext.Observe(ctx, p)
			if err != nil {
				t.Fatalf("%s\nObserve: %v", tc.reason, err)
			}
			if obs.ResourceUpToDate != (tc.wantPatches == 0) {
				t.Errorf("%s\nObserve says up to date = %t (diff %q)", tc.reason, obs.ResourceUpToDate, obs.Diff)
			}
			before := f.srv.Requests(fakecoder.EndpointProviderUpdate)
			if _, err := f.ext.Update(ctx, p); err != nil {
				t.Fatalf("%s\nUpdate: %v", tc.reason, err)
			}
			if n := f.srv.Requests(fakecoder.EndpointProviderUpdate) - before; n != tc.wantPatches {
				t.Errorf("%s\nUpdate sent %d PATCH requests, want %d", tc.reason, n, tc.wantPatches)
			}
			row := f.srv.Providers(false)[0]
			if row.DisplayName != tc.wantDisplay || !cmp.Equal(row.PlaintextKeys(), []string{tc.wantKey}) {
				t.Errorf("%s\nCoder has display name %q and %d keys, want %q and the Secret's key", tc.reason, row.DisplayName, len(row.APIKeys), tc.wantDisplay)
			}
			keysAfter := p.Status.AtProvider.AppliedAPIKeyIDs
			if sent := !cmp.Equal(keysBefore, keysAfter); sent != tc.wantKeysSent {
				t.Errorf("%s\napplied key ids %v -> %v: keys sent %t, want %t", tc.reason, keysBefore, keysAfter, sent, tc.wantKeysSent)
			}
			if diff := cmp.Diff([]string{row.APIKeys[0].ID.String()}, keysAfter); diff != "" {
				t.Errorf("%s\napplied key ids: -Coder's, +status:\n%s", tc.reason, diff)
			}
			if fp, want := p.Status.AtProvider.CredentialsFingerprint, Fingerprint(testKey, testUID, Credentials{APIKeys: []string{tc.wantKey}}); fp != want {
				t.Errorf("%s\nstatus fingerprint %q, want the keyed fingerprint of the key sent, %q", tc.reason, fp, want)
			}
			assertNoAPIKey(t, tc.reason, p)
		})
	}
}

func TestUpdateProviderErrorIsClassified(t *testing.T) {
	cases := map[string]struct {
		reason    string
		status    int
		observe   bool
		wantClass coder.Class
		wantMsg   string
	}{
		"NotObserved": {
			reason:  "Update without the Observe of the same reconcile has no diff to send, and says so.",
			wantMsg: errNotObserved, wantClass: coder.ClassUnknown,
		},
		"Conflict": {
			reason: "Coder's 409 to the PATCH is a conflict.", status: 409, observe: true,
			wantMsg: errUpdateProvider, wantClass: coder.ClassConflict,
		},
		"Invalid": {
			reason: "Coder's 400 to the PATCH is invalid.", status: 400, observe: true,
			wantMsg: errUpdateProvider, wantClass: coder.ClassInvalid,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			f := newFixture(t, liveProvider(""), keySecret(apiKey))
			p := f.created(t)
			p.Spec.ForProvider.DisplayName = ptr.To("OpenAI 2")
			if tc.observe {
				if _, err := f.ext.Observe(ctx, p); err != nil {
					t.Fatal(err)
				}
			}
			if tc.status != 0 {
				if err := f.srv.SetFault(fakecoder.EndpointProviderUpdate, fakecoder.Fault{Status: tc.status, Times: 1}); err != nil {
					t.Fatal(err)
				}
			}
			_, err := f.ext.Update(ctx, p)
			if err == nil {
				t.Fatalf("%s\nUpdate succeeded, want an error", tc.reason)
			}
			if got := coder.ClassOf(err); got != tc.wantClass {
				t.Errorf("%s\nerror class %q, want %q (error: %v)", tc.reason, got, tc.wantClass, err)
			}
			if !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("%s\nerror %q, want it to say %q", tc.reason, err, tc.wantMsg)
			}
			if got := f.srv.Providers(false)[0].DisplayName; got != "OpenAI" {
				t.Errorf("%s\nCoder's display name %q after a failed update, want it unchanged", tc.reason, got)
			}
		})
	}
}
