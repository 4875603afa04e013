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

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"

	"github.com/coder/coder/v2/codersdk"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8syaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	clusteraiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/ai/v1alpha1"
	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/controller/aiprovider"
	"github.com/crossplane-contrib/provider-coder/internal/fingerprintkey"
	"github.com/crossplane-contrib/provider-coder/test/framework/crds"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// pollInterval is the provider's poll in these scenarios (see TestMain).
const pollInterval = 3 * time.Second

func ref(name, key string) common.LocalSecretKeySelector {
	return common.LocalSecretKeySelector{Name: name, Key: key}
}

func newAIProvider(ns, name string, typ common.AIProviderType, baseURL string) *aiv1alpha1.AIProvider {
	p := &aiv1alpha1.AIProvider{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	p.Spec.ProviderConfigReference = testenv.PCRef()
	p.Spec.ForProvider.Type = typ
	p.Spec.ForProvider.BaseURL = baseURL
	p.Spec.ForProvider.Name = ptr.To(testenv.UniqueProviderName(string(typ)))
	return p
}

// edited returns p after mutate changed it.
func edited(p *aiv1alpha1.AIProvider, mutate func(*aiv1alpha1.AIProvider)) *aiv1alpha1.AIProvider {
	mutate(p)
	return p
}

// wantRow checks the fake's row against the spec field by field, with the
// key material the Secrets hold.
func wantRow(t *testing.T, p *aiv1alpha1.AIProvider, keys []string, accessKeyID, secretAccessKey *string, row fakecoder.ProviderRow) {
	t.Helper()
	fp := p.Spec.ForProvider
	check := func(field string, got, want any) {
		t.Helper()
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: Coder's %s = %v, want %v", p.Name, field, got, want)
		}
	}
	check("type", row.Type, fp.Type)
	check("name", row.Name, *fp.Name)
	wantDisplay := ""
	if fp.DisplayName != nil {
		wantDisplay = *fp.DisplayName
	}
	check("display_name (stored)", row.DisplayName, wantDisplay)
	wantIcon := ""
	if fp.Icon != nil {
		wantIcon = *fp.Icon
	}
	check("icon", row.Icon, wantIcon)
	check("enabled", row.Enabled, fp.Enabled == nil || *fp.Enabled)
	check("base_url", row.BaseURL, fp.BaseURL)
	check("deleted", row.Deleted, false)
	if !testenv.SameKeys(row.PlaintextKeys(), keys) {
		t.Errorf("%s: Coder holds %d keys that are not exactly the %d keys of the Secrets", p.Name, len(row.PlaintextKeys()), len(keys))
	}
	b := row.Settings.Bedrock
	if fp.Bedrock == nil {
		if b != nil {
			t.Errorf("%s: Coder has Bedrock settings %+v, the spec none", p.Name, *b)
		}
		return
	}
	if b == nil {
		t.Fatalf("%s: Coder has no Bedrock settings", p.Name)
	}
	region := fp.Bedrock.Region
	if region == "" {
		region = aiprovider.RegionFromBaseURL(fp.BaseURL)
	}
	check("settings.region", b.Region, region)
	check("settings.model", b.Model, fp.Bedrock.Model)
	check("settings.small_fast_model", b.SmallFastModel, fp.Bedrock.SmallFastModel)
	check("settings.role_arn", b.RoleARN, fp.Bedrock.RoleARN)
	check("settings.protocol", b.Protocol, fp.Bedrock.Protocol)
	if (b.AccessKey == nil) != (accessKeyID == nil) || (b.AccessKey != nil && *b.AccessKey != *accessKeyID) {
		t.Errorf("%s: Coder's access key is not the Secret's", p.Name)
	}
	if (b.AccessKeySecret == nil) != (secretAccessKey == nil) || (b.AccessKeySecret != nil && *b.AccessKeySecret != *secretAccessKey) {
		t.Errorf("%s: Coder's secret access key is not the Secret's", p.Name)
	}
	if fp.Bedrock.RoleARN != "" && b.ExternalID == "" {
		t.Errorf("%s: Coder generated no external id for the role", p.Name)
	}
}

// wantStatus checks status.atProvider against the row.
func wantStatus(t *testing.T, p *aiv1alpha1.AIProvider, row fakecoder.ProviderRow) {
	t.Helper()
	at := p.Status.AtProvider
	if got := meta.GetExternalName(p); got != row.ID.String() {
		t.Errorf("%s: external name = %q, want the Coder id %s", p.Name, got, row.ID)
	}
	if at.ID != row.ID.String() || at.Name != row.Name || at.Enabled == nil || *at.Enabled != row.Enabled || at.CreatedAt == nil || at.UpdatedAt == nil {
		t.Errorf("%s: status.atProvider id/name/enabled/createdAt/updatedAt = %s/%s/%v/%v/%v, want %s/%s/%t and times",
			p.Name, at.ID, at.Name, at.Enabled, at.CreatedAt, at.UpdatedAt, row.ID, row.Name, row.Enabled)
	}
	if len(at.APIKeys) != len(row.APIKeys) {
		t.Fatalf("%s: status shows %d keys, Coder holds %d", p.Name, len(at.APIKeys), len(row.APIKeys))
	}
	for i, k := range row.APIKeys {
		if at.APIKeys[i].ID != k.ID.String() || at.APIKeys[i].Masked == "" || at.APIKeys[i].Masked == k.APIKey {
			t.Errorf("%s: status key %d = %s (masked %d chars), want id %s with a masked value", p.Name, i, at.APIKeys[i].ID, len(at.APIKeys[i].Masked), k.ID)
		}
	}
	if !testenv.SameKeys(at.AppliedAPIKeyIDs, keyIDsOf(row)) {
		t.Errorf("%s: applied key ids %v are not Coder's %v", p.Name, at.AppliedAPIKeyIDs, keyIDsOf(row))
	}
	wantKeyedFingerprint(t, p, row)
	if b := row.Settings.Bedrock; b != nil {
		if at.Bedrock == nil || at.Bedrock.ExternalID != b.ExternalID || at.Bedrock.Region != b.Region {
			t.Errorf("%s: status.atProvider.bedrock = %+v, want region %s and external id %s", p.Name, at.Bedrock, b.Region, b.ExternalID)
		}
	}
}

// wantKeyedFingerprint checks that p's status fingerprints the credentials
// Coder holds with the HMAC keyed by the provider's own key, and carries
// no unkeyed hash that anyone reading status could test guesses against.
func wantKeyedFingerprint(t *testing.T, p *aiv1alpha1.AIProvider, row fakecoder.ProviderRow) {
	t.Helper()
	c := aiprovider.Credentials{APIKeys: row.PlaintextKeys()}
	if b := row.Settings.Bedrock; b != nil {
		c.AccessKeyID, c.SecretAccessKey = b.AccessKey, b.AccessKeySecret
	}
	uid := string(p.UID)
	fp := p.Status.AtProvider.CredentialsFingerprint
	if fp == aiprovider.LegacyFingerprint(uid, c) || !strings.HasPrefix(fp, aiprovider.FingerprintPrefix) {
		t.Errorf("%s: credentialsFingerprint = %q, an unkeyed hash: want %s...", p.Name, fp, aiprovider.FingerprintPrefix)
	}
	key := fingerprintKey(t)
	if want := aiprovider.Fingerprint(key, uid, c); fp != want {
		t.Errorf("%s: credentialsFingerprint = %q, want %q, the HMAC keyed with the provider's key", p.Name, fp, want)
	}
	// Whoever lacks the key cannot compute it: with any other key it differs.
	other := slices.Clone(key)
	other[0] ^= 0xff
	if fp == aiprovider.Fingerprint(other, uid, c) || fp == aiprovider.Fingerprint(nil, uid, c) {
		t.Errorf("%s: credentialsFingerprint %q is the same without the provider's key", p.Name, fp)
	}
}

// fingerprintKey reads the provider's fingerprint key from its Secret in
// the provider's namespace.
func fingerprintKey(t *testing.T) []byte {
	t.Helper()
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: env.Options.Namespace, Name: fingerprintkey.SecretName}}
	if !env.Get(t, s) {
		t.Fatalf("no fingerprint key Secret %s/%s", s.Namespace, s.Name)
	}
	return s.Data[fingerprintkey.DataKey]
}

func keyIDsOf(row fakecoder.ProviderRow) []string {
	out := []string{}
	for _, k := range row.APIKeys {
		out = append(out, k.ID.String())
	}
	return out
}

// providerCase is one AIProvider with the Secrets it reads.
type providerCase struct {
	mr              *aiv1alpha1.AIProvider
	keys            []string
	accessKeyID     *string
	secretAccessKey *string
}

func TestAIProviderOfEachTypeIsCreatedAsSpecifiedAndDeleted(t *testing.T) {
	ns := env.Namespace(t)
	env.ProviderConfig(t, ns)
	env.Secret(t, ns, "llm-keys", map[string]string{
		"openai": "sk-openai-1-k3y9Qm2Xv7Lp\n", "openai-2": "sk-openai-2-k3y9Qm2Xv7Lp", "anthropic": "sk-ant-1-k3y9Qm2Xv7Lp", "azure": "azure-1-k3y9Qm2Xv7Lp",
		"google": "google-1-k3y9Qm2Xv7Lp", "compat": "compat-1-k3y9Qm2Xv7Lp", "openrouter": "or-1-k3y9Qm2Xv7Lp", "vercel": "vercel-1-k3y9Qm2Xv7Lp",
	})
	env.Secret(t, ns, "aws", map[string]string{"id": "AKIAEXAMPLEKEYID", "secret": "aws-secret-access-key"})

	var cases []providerCase
	add := func(p *aiv1alpha1.AIProvider, keys ...string) *providerCase {
		for _, k := range keys {
			p.Spec.ForProvider.APIKeySecretRefs = append(p.Spec.ForProvider.APIKeySecretRefs, ref("llm-keys", k))
		}
		c := providerCase{mr: p}
		for _, k := range keys {
			c.keys = append(c.keys, strings.TrimSpace(map[string]string{
				"openai": "sk-openai-1-k3y9Qm2Xv7Lp", "openai-2": "sk-openai-2-k3y9Qm2Xv7Lp", "anthropic": "sk-ant-1-k3y9Qm2Xv7Lp", "azure": "azure-1-k3y9Qm2Xv7Lp",
				"google": "google-1-k3y9Qm2Xv7Lp", "compat": "compat-1-k3y9Qm2Xv7Lp", "openrouter": "or-1-k3y9Qm2Xv7Lp", "vercel": "vercel-1-k3y9Qm2Xv7Lp",
			}[k]))
		}
		cases = append(cases, c)
		return &cases[len(cases)-1]
	}
	openai := newAIProvider(ns, "openai", "openai", "https://api.openai.com/v1")
	openai.Spec.ForProvider.DisplayName = ptr.To("OpenAI")
	openai.Spec.ForProvider.Icon = ptr.To("/icon/openai.svg")
	add(openai, "openai", "openai-2")
	add(newAIProvider(ns, "anthropic", "anthropic", "https://api.anthropic.com/"), "anthropic")
	add(newAIProvider(ns, "azure", "azure", "https://my-resource.openai.azure.com/openai/v1"), "azure")
	add(newAIProvider(ns, "google", "google", "https://generativelanguage.googleapis.com/v1beta/openai/"), "google")
	add(newAIProvider(ns, "compat", "openai-compat", "https://llm.internal.example.com/v1"), "compat")
	add(newAIProvider(ns, "openrouter", "openrouter", "https://openrouter.ai/api/v1"), "openrouter")
	vercel := newAIProvider(ns, "vercel", "vercel", "https://ai-gateway.vercel.sh/v1")
	vercel.Spec.ForProvider.Enabled = ptr.To(false)
	add(vercel, "vercel")
	br := newAIProvider(ns, "bedrock", "bedrock", "https://bedrock-runtime.us-east-1.amazonaws.com")
	br.Spec.ForProvider.Bedrock = &aiv1alpha1.BedrockParameters{
		BedrockFields: common.BedrockFields{
			Model: "anthropic.claude-sonnet-4-5", SmallFastModel: "anthropic.claude-haiku-4-5",
			RoleARN: "arn:aws:iam::123456789012:role/CoderBedrock",
		},
		AccessKeyIDSecretRef:     ptr.To(ref("aws", "id")),
		SecretAccessKeySecretRef: ptr.To(ref("aws", "secret")),
	}
	bc := add(br)
	bc.accessKeyID, bc.secretAccessKey = ptr.To("AKIAEXAMPLEKEYID"), ptr.To("aws-secret-access-key")
	add(newAIProvider(ns, "copilot", "copilot", "https://api.githubcopilot.com"))
	// Anthropic through Bedrock's mantle endpoint, region from the URL.
	mantle := newAIProvider(ns, "mantle", "anthropic", "https://bedrock-mantle.eu-west-1.api.aws/anthropic")
	mantle.Spec.ForProvider.Bedrock = &aiv1alpha1.BedrockParameters{BedrockFields: common.BedrockFields{Protocol: "mantle"}}
	add(mantle)

	patchesBefore := env.Coder.Requests(fakecoder.EndpointProviderUpdate)
	start := time.Now()
	for _, c := range cases {
		env.Create(t, c.mr)
	}
	// They reconcile concurrently; waiting in turn waits for the slowest.
	for _, c := range cases {
		env.WaitCondition(t, c.mr, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	}
	t.Logf("%d AIProviders Ready in %s", len(cases), time.Since(start).Round(time.Millisecond))

	for _, c := range cases {
		row, ok := env.LiveProvider(*c.mr.Spec.ForProvider.Name)
		if !ok {
			t.Errorf("%s: no live provider %q in Coder", c.mr.Name, *c.mr.Spec.ForProvider.Name)
			continue
		}
		wantRow(t, c.mr, c.keys, c.accessKeyID, c.secretAccessKey, row)
		wantStatus(t, c.mr, row)
	}

	// The status written at create carries the applied key ids and the
	// fingerprint: the next polls find nothing to send.
	waitForProviderPolls(t, len(cases))
	if n := env.Coder.Requests(fakecoder.EndpointProviderUpdate) - patchesBefore; n != 0 {
		t.Errorf("%d PATCH requests after creating providers that match their specs, want 0", n)
	}

	start = time.Now()
	for _, c := range cases {
		env.Delete(t, c.mr)
	}
	for _, c := range cases {
		env.WaitGone(t, c.mr, testenv.WaitLong)
	}
	t.Logf("%d AIProviders deleted in %s", len(cases), time.Since(start).Round(time.Millisecond))
	coderClient := env.CoderClient(t)
	for _, c := range cases {
		id := meta.GetExternalName(c.mr)
		row, ok := env.ProviderRowByID(id)
		if !ok || !row.Deleted {
			t.Errorf("%s: provider %s is not soft-deleted in Coder (found %t)", c.mr.Name, id, ok)
		}
		_, err := coderClient.AIProvider(context.Background(), id)
		var se *codersdk.Error
		if !errors.As(err, &se) || se.StatusCode() != http.StatusNotFound {
			t.Errorf("%s: GET provider %s after delete = %v, want 404", c.mr.Name, id, err)
		}
	}
}

func TestAIProviderDriftInCoderIsPutBackWithOnePatchPerDrift(t *testing.T) {
	ns := env.Namespace(t)
	env.ProviderConfig(t, ns)
	env.Secret(t, ns, "openai", map[string]string{"a": "sk-drift-a-k3y9Qm2Xv7Lp", "b": "sk-drift-b-k3y9Qm2Xv7Lp"})
	p := newAIProvider(ns, "drift", "openai", "https://api.openai.com/v1")
	p.Spec.ForProvider.DisplayName = ptr.To("OpenAI for drift")
	p.Spec.ForProvider.APIKeySecretRefs = []common.LocalSecretKeySelector{ref("openai", "a"), ref("openai", "b")}
	env.Create(t, p)
	env.WaitCondition(t, p, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	id := meta.GetExternalName(p)
	keys := []string{"sk-drift-a-k3y9Qm2Xv7Lp", "sk-drift-b-k3y9Qm2Xv7Lp"}

	drifts := []struct {
		name  string
		edit  func(*fakecoder.ProviderRow)
		fixed func(fakecoder.ProviderRow) bool
	}{
		{"displayName", func(r *fakecoder.ProviderRow) { r.DisplayName = "Edited in the UI" },
			func(r fakecoder.ProviderRow) bool { return r.DisplayName == "OpenAI for drift" }},
		{"enabled", func(r *fakecoder.ProviderRow) { r.Enabled = false },
			func(r fakecoder.ProviderRow) bool { return r.Enabled }},
		{"baseURL", func(r *fakecoder.ProviderRow) { r.BaseURL = "https://proxy.example.com/v1" },
			func(r fakecoder.ProviderRow) bool { return r.BaseURL == "https://api.openai.com/v1" }},
		{"removedKey", func(r *fakecoder.ProviderRow) { r.APIKeys = r.APIKeys[:1] },
			func(r fakecoder.ProviderRow) bool { return testenv.SameKeys(r.PlaintextKeys(), keys) }},
		{"addedKey", func(r *fakecoder.ProviderRow) {
			r.APIKeys = append(r.APIKeys, fakecoder.ProviderKeyRow{APIKey: "sk-smuggled"})
		},
			func(r fakecoder.ProviderRow) bool { return testenv.SameKeys(r.PlaintextKeys(), keys) }},
	}
	for _, d := range drifts {
		before := env.Coder.Requests(fakecoder.EndpointProviderUpdate)
		start := time.Now()
		if _, err := env.Coder.EditProvider(id, d.edit); err != nil {
			t.Fatalf("%s: cannot edit the provider in Coder: %v", d.name, err)
		}
		testenv.Eventually(t, pollInterval+5*time.Second, d.name+" put back", func() (bool, string) {
			row, ok := env.ProviderRowByID(id)
			return ok && d.fixed(row), fmt.Sprintf("row %+v", redactedRow(row))
		})
		took := time.Since(start)
		// One more poll must find nothing to do: one PATCH per drift, not
		// one per poll.
		waitForProviderPolls(t, 1)
		patches := env.Coder.Requests(fakecoder.EndpointProviderUpdate) - before
		t.Logf("drift %-11s put back after %5s with %d PATCH", d.name, took.Round(10*time.Millisecond), patches)
		if took > pollInterval+2*time.Second {
			t.Errorf("drift %s took %s to put back, want within one poll (%s)", d.name, took, pollInterval)
		}
		if patches != 1 {
			t.Errorf("drift %s: %d PATCH requests, want exactly 1", d.name, patches)
		}
	}
	row, _ := env.ProviderRowByID(id)
	env.Get(t, p)
	wantRow(t, p, keys, nil, nil, row)
	wantStatus(t, p, row)
	// One entry per drift put back, after the create.
	wantChanges(t, p, change{op: opCreate}, change{op: opUpdate}, change{op: opUpdate}, change{op: opUpdate}, change{op: opUpdate}, change{op: opUpdate})
	env.Delete(t, p)
	env.WaitGone(t, p, testenv.WaitLong)
	wantChanges(t, p, change{op: opCreate}, change{op: opDelete})
}

func TestAIProviderRotatesTheKeyWhenTheSecretChanges(t *testing.T) {
	ns := env.Namespace(t)
	env.ProviderConfig(t, ns)
	const oldKey, newKey = "sk-rotate-old-0123456789abcdef", "sk-rotate-new-fedcba9876543210"
	s := env.Secret(t, ns, "openai", map[string]string{"key": oldKey})
	p := newAIProvider(ns, "rotate", "openai", "https://api.openai.com/v1")
	p.Spec.ForProvider.APIKeySecretRefs = []common.LocalSecretKeySelector{ref("openai", "key")}
	env.Create(t, p)
	env.WaitCondition(t, p, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	id := meta.GetExternalName(p)
	fpBefore := p.Status.AtProvider.CredentialsFingerprint

	before := env.Coder.Requests(fakecoder.EndpointProviderUpdate)
	start := time.Now()
	s.Data["key"] = []byte(newKey)
	if err := env.Kube.Update(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, pollInterval+5*time.Second, "Coder to hold exactly the new key", func() (bool, string) {
		row, _ := env.ProviderRowByID(id)
		return testenv.SameKeys(row.PlaintextKeys(), []string{newKey}), fmt.Sprintf("%d keys, new one present: %t", len(row.PlaintextKeys()), strings.Contains(strings.Join(row.PlaintextKeys(), ","), newKey))
	})
	took := time.Since(start)
	waitForProviderPolls(t, 1)
	patches := env.Coder.Requests(fakecoder.EndpointProviderUpdate) - before
	t.Logf("rotated key reached Coder after %s (poll %s) with %d PATCH", took.Round(10*time.Millisecond), pollInterval, patches)
	if patches != 1 {
		t.Errorf("rotation: %d PATCH requests, want exactly 1", patches)
	}
	if took > pollInterval {
		t.Errorf("rotation took %s, want sooner than one poll (%s) through the Secret watch", took, pollInterval)
	}

	env.Get(t, p)
	if fp := p.Status.AtProvider.CredentialsFingerprint; fp == fpBefore || fp == "" {
		t.Errorf("credentialsFingerprint = %q after rotation, before %q: want a new one", fp, fpBefore)
	}
	row, _ := env.ProviderRowByID(id)
	wantStatus(t, p, row)

	// The key material is nowhere but in Coder and the Secret.
	obj, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var events strings.Builder
	for _, e := range env.NamespaceEvents(t, ns) {
		events.WriteString(e.Reason + " " + e.Message + "\n")
	}
	for _, key := range []string{oldKey, newKey} {
		if strings.Contains(string(obj), key) {
			t.Errorf("the AIProvider object contains key material")
		}
		if strings.Contains(events.String(), key) {
			t.Errorf("an event contains key material")
		}
		if env.Logs.Contains(key) {
			t.Errorf("the provider's logs contain key material")
		}
	}
}

func TestAIProviderDoesNotAdoptATakenName(t *testing.T) {
	ns := env.Namespace(t)
	env.ProviderConfig(t, ns)
	env.Secret(t, ns, "openai", map[string]string{"key": "sk-mine-k3y9Qm2Xv7Lp"})
	name := testenv.UniqueProviderName("taken")
	coderClient := env.CoderClient(t)
	other, err := coderClient.CreateAIProvider(context.Background(), codersdk.CreateAIProviderRequest{
		Type: "openai", Name: name, Enabled: true, BaseURL: "https://other.example.com/v1", APIKeys: []string{"sk-theirs"},
	})
	if err != nil {
		t.Fatalf("cannot create the other provider in Coder: %v", err)
	}
	createsBefore := env.Coder.Requests(fakecoder.EndpointProvidersCreate)
	patchesBefore := env.Coder.Requests(fakecoder.EndpointProviderUpdate)

	p := newAIProvider(ns, "mine", "openai", "https://api.openai.com/v1")
	p.Spec.ForProvider.Name = ptr.To(name)
	p.Spec.ForProvider.APIKeySecretRefs = []common.LocalSecretKeySelector{ref("openai", "key")}
	env.Create(t, p)
	c := env.WaitCondition(t, p, xpv2.TypeSynced, corev1.ConditionFalse, testenv.WaitLong)
	if !strings.Contains(c.Message, "taken") || !strings.Contains(c.Message, name) {
		t.Errorf("Synced message %q does not say the name %q is taken", c.Message, name)
	}
	// Retried with backoff, and still not adopted.
	testenv.Eventually(t, testenv.WaitLong, "a second create attempt", func() (bool, string) {
		n := env.Coder.Requests(fakecoder.EndpointProvidersCreate) - createsBefore
		return n >= 2, fmt.Sprintf("%d attempts", n)
	})
	env.Get(t, p)
	if id := meta.GetExternalName(p); id != "" {
		t.Fatalf("external name = %q: the other provider was adopted", id)
	}
	if row, _ := env.ProviderRowByID(other.ID.String()); !testenv.SameKeys(row.PlaintextKeys(), []string{"sk-theirs"}) || row.BaseURL != "https://other.example.com/v1" {
		t.Errorf("the other provider was changed: base URL %s, %d keys", row.BaseURL, len(row.PlaintextKeys()))
	}
	if n := env.Coder.Requests(fakecoder.EndpointProviderUpdate) - patchesBefore; n != 0 {
		t.Errorf("%d PATCH requests while the name was taken, want 0", n)
	}
	t.Logf("Synced=False: %s", c.Message)

	if err := coderClient.DeleteAIProvider(context.Background(), other.ID.String()); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	env.WaitCondition(t, p, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	t.Logf("created %s after the other provider was deleted", time.Since(start).Round(10*time.Millisecond))
	row, ok := env.LiveProvider(name)
	if !ok || row.ID == other.ID || meta.GetExternalName(p) != row.ID.String() {
		t.Fatalf("live provider %q = %s (found %t), external name %s, other %s: want a new provider of this resource", name, row.ID, ok, meta.GetExternalName(p), other.ID)
	}
	wantRow(t, p, []string{"sk-mine-k3y9Qm2Xv7Lp"}, nil, nil, row)
}

// TestAIProviderUncertainCreateAdoptsItsOwnProvider: a create Coder wrote
// but whose answer the provider could not use is uncertain, never taken for
// a refusal: the next reconcile finds the provider by name and adopts it.
// The 200 case was found by soak seed 118707505893: taken for a refusal, it
// left the provider in Coder when the resource was deleted.
func TestAIProviderUncertainCreateAdoptsItsOwnProvider(t *testing.T) {
	faults := map[string]fakecoder.Fault{
		// The response never arrives.
		"AnswerLost": {CommitThenTimeout: true, Times: 1},
		// A proxy in front of Coder fails after Coder wrote the provider.
		"CommittedThen502": {Status: 502, Commit: true, Times: 1},
	}
	for name, fault := range faults {
		t.Run(name, func(t *testing.T) {
			ns := env.Namespace(t)
			env.ProviderConfig(t, ns)
			env.Secret(t, ns, "openai", map[string]string{"key": "sk-uncertain-k3y9Qm2Xv7Lp"})
			if err := env.Coder.SetFault(fakecoder.EndpointProvidersCreate, fault); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { env.Coder.ClearFault(fakecoder.EndpointProvidersCreate) })
			createsBefore := env.Coder.Requests(fakecoder.EndpointProvidersCreate)

			p := newAIProvider(ns, "uncertain", "openai", "https://api.openai.com/v1")
			p.Spec.ForProvider.APIKeySecretRefs = []common.LocalSecretKeySelector{ref("openai", "key")}
			env.Create(t, p)
			env.WaitCondition(t, p, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)

			rows := env.ProviderRows(*p.Spec.ForProvider.Name)
			if len(rows) != 1 {
				t.Fatalf("Coder holds %d providers named %q, want exactly 1", len(rows), *p.Spec.ForProvider.Name)
			}
			if got := meta.GetExternalName(p); got != rows[0].ID.String() {
				t.Errorf("external name = %q, want the provider the uncertain create wrote, %s", got, rows[0].ID)
			}
			if n := env.Coder.Requests(fakecoder.EndpointProvidersCreate) - createsBefore; n != 1 {
				t.Errorf("%d create requests, want 1 (the uncertain one, then adoption)", n)
			}
			testenv.Eventually(t, testenv.WaitLong, "the adoption event", func() (bool, string) {
				for _, e := range env.NamespaceEvents(t, ns) {
					if e.Reason == string(aiprovider.ReasonAdoptedUncertainCreate) && e.InvolvedObject.Name == p.Name {
						return true, ""
					}
				}
				return false, "no " + string(aiprovider.ReasonAdoptedUncertainCreate) + " event"
			})
			row, _ := env.ProviderRowByID(meta.GetExternalName(p))
			wantRow(t, p, []string{"sk-uncertain-k3y9Qm2Xv7Lp"}, nil, nil, row)
		})
	}
}

func TestAIProviderInvalidSpecsNeverReachCoder(t *testing.T) {
	ns := env.Namespace(t)
	env.ProviderConfig(t, ns)
	env.Secret(t, ns, "keys", map[string]string{"key": "sk-valid-k3y9Qm2Xv7Lp", "blank": "  \n"})
	createsBefore := env.Coder.Requests(fakecoder.EndpointProvidersCreate)
	patchesBefore := env.Coder.Requests(fakecoder.EndpointProviderUpdate)

	withKey := func(p *aiv1alpha1.AIProvider) *aiv1alpha1.AIProvider {
		p.Spec.ForProvider.APIKeySecretRefs = []common.LocalSecretKeySelector{ref("keys", "key")}
		return p
	}
	pair := func(b *aiv1alpha1.BedrockParameters) *aiv1alpha1.BedrockParameters {
		b.AccessKeyIDSecretRef, b.SecretAccessKeySecretRef = ptr.To(ref("keys", "key")), ptr.To(ref("keys", "key"))
		return b
	}
	rejected := map[string]struct {
		p    *aiv1alpha1.AIProvider
		want string
	}{
		"NamePattern": {
			p: edited(newAIProvider(ns, "bad-name", "openai", "https://api.openai.com/v1"), func(p *aiv1alpha1.AIProvider) {
				p.Spec.ForProvider.Name = ptr.To("Not_Valid")
			}),
			want: "spec.forProvider.name",
		},
		"MetadataNameAsCoderName": {
			p: edited(newAIProvider(ns, "dotted.name", "openai", "https://api.openai.com/v1"), func(p *aiv1alpha1.AIProvider) {
				p.Spec.ForProvider.Name = nil
			}),
			want: "metadata.name is not a valid Coder provider name",
		},
		"UnknownType": {
			p:    newAIProvider(ns, "mistral", "mistral", "https://api.mistral.ai/v1"),
			want: "spec.forProvider.type",
		},
		"BaseURLScheme": {
			p:    newAIProvider(ns, "ftp", "openai", "ftp://example.com/v1"),
			want: "forProvider.baseURL must be an absolute http or https URL",
		},
		"RelativeBaseURL": {
			p:    newAIProvider(ns, "relative", "openai", "api.openai.com/v1"),
			want: "forProvider.baseURL must be an absolute http or https URL",
		},
		"KeysForCopilot": {
			p:    withKey(newAIProvider(ns, "copilot-keys", "copilot", "https://api.githubcopilot.com")),
			want: "type bedrock and copilot do not accept API keys",
		},
		"KeysForBedrock": {
			p: edited(withKey(newAIProvider(ns, "bedrock-keys", "bedrock", "https://bedrock-runtime.us-east-1.amazonaws.com")), func(p *aiv1alpha1.AIProvider) {
				p.Spec.ForProvider.Bedrock = &aiv1alpha1.BedrockParameters{}
			}),
			want: "type bedrock and copilot do not accept API keys",
		},
		"KeysWithBedrockSettings": {
			p: edited(withKey(newAIProvider(ns, "anthropic-keys", "anthropic", "https://bedrock-runtime.us-east-1.amazonaws.com")), func(p *aiv1alpha1.AIProvider) {
				p.Spec.ForProvider.Bedrock = &aiv1alpha1.BedrockParameters{}
			}),
			want: "a provider with bedrock settings authenticates with them",
		},
		"BedrockSettingsForOpenAI": {
			p: edited(newAIProvider(ns, "openai-bedrock", "openai", "https://api.openai.com/v1"), func(p *aiv1alpha1.AIProvider) {
				p.Spec.ForProvider.Bedrock = &aiv1alpha1.BedrockParameters{BedrockFields: common.BedrockFields{Region: "us-east-1"}}
			}),
			want: "bedrock settings are only valid for type anthropic or bedrock",
		},
		"BedrockWithoutSettings": {
			p:    newAIProvider(ns, "bedrock-bare", "bedrock", "https://bedrock-runtime.us-east-1.amazonaws.com"),
			want: "type bedrock requires bedrock settings",
		},
		"BedrockWithoutRegionBehindAProxy": {
			p: edited(newAIProvider(ns, "bedrock-proxy", "bedrock", "https://bedrock.proxy.example.com"), func(p *aiv1alpha1.AIProvider) {
				p.Spec.ForProvider.Bedrock = &aiv1alpha1.BedrockParameters{BedrockFields: common.BedrockFields{Model: "claude"}}
			}),
			want: "type bedrock requires bedrock settings",
		},
		"MantleWithoutRegion": {
			p: edited(newAIProvider(ns, "mantle-proxy", "anthropic", "https://mantle.proxy.example.com"), func(p *aiv1alpha1.AIProvider) {
				p.Spec.ForProvider.Bedrock = &aiv1alpha1.BedrockParameters{BedrockFields: common.BedrockFields{Protocol: "mantle"}}
			}),
			want: "region is required for the mantle protocol",
		},
		"HalfAnAccessKeyPair": {
			p: edited(newAIProvider(ns, "half-pair", "bedrock", "https://bedrock-runtime.us-east-1.amazonaws.com"), func(p *aiv1alpha1.AIProvider) {
				p.Spec.ForProvider.Bedrock = &aiv1alpha1.BedrockParameters{AccessKeyIDSecretRef: ptr.To(ref("keys", "key"))}
			}),
			want: "set both accessKeyIDSecretRef and secretAccessKeySecretRef, or neither",
		},
		"RoleOfAnotherService": {
			p: edited(newAIProvider(ns, "s3-role", "bedrock", "https://bedrock-runtime.us-east-1.amazonaws.com"), func(p *aiv1alpha1.AIProvider) {
				p.Spec.ForProvider.Bedrock = &aiv1alpha1.BedrockParameters{BedrockFields: common.BedrockFields{RoleARN: "arn:aws:s3:::bucket/role/x"}}
			}),
			want: "spec.forProvider.bedrock.roleARN",
		},
	}
	for name, tc := range rejected {
		err := env.Kube.Create(context.Background(), tc.p)
		if err == nil {
			t.Errorf("%s: admitted, want rejected with %q", name, tc.want)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: rejected with %q, want it to say %q", name, err, tc.want)
		}
	}

	// What admission cannot see: the Secrets' values. A clear condition, and
	// no request.
	conditions := map[string]struct {
		p    *aiv1alpha1.AIProvider
		want string
	}{
		"MissingSecret": {
			p: edited(newAIProvider(ns, "missing-secret", "openai", "https://api.openai.com/v1"), func(p *aiv1alpha1.AIProvider) {
				p.Spec.ForProvider.APIKeySecretRefs = []common.LocalSecretKeySelector{ref("keys", "key"), ref("nope", "key")}
			}),
			want: "cannot read spec.forProvider.apiKeySecretRefs[1]: cannot get Secret " + ns + "/nope",
		},
		"MissingKey": {
			p: edited(newAIProvider(ns, "missing-key", "anthropic", "https://api.anthropic.com/"), func(p *aiv1alpha1.AIProvider) {
				p.Spec.ForProvider.APIKeySecretRefs = []common.LocalSecretKeySelector{ref("keys", "other")}
			}),
			want: `Secret ` + ns + `/keys has no key "other"`,
		},
		"BlankKey": {
			p: edited(newAIProvider(ns, "blank-key", "openai", "https://api.openai.com/v1"), func(p *aiv1alpha1.AIProvider) {
				p.Spec.ForProvider.APIKeySecretRefs = []common.LocalSecretKeySelector{ref("keys", "blank")}
			}),
			want: `key "blank" of Secret ` + ns + `/keys is empty`,
		},
		"BlankAccessKeyPair": {
			p: edited(newAIProvider(ns, "blank-pair", "bedrock", "https://bedrock.proxy.example.com"), func(p *aiv1alpha1.AIProvider) {
				p.Spec.ForProvider.Bedrock = pair(&aiv1alpha1.BedrockParameters{})
				p.Spec.ForProvider.Bedrock.AccessKeyIDSecretRef = ptr.To(ref("keys", "blank"))
			}),
			want: "cannot read spec.forProvider.bedrock.accessKeyIDSecretRef",
		},
	}
	for _, tc := range conditions {
		env.Create(t, tc.p)
	}
	for name, tc := range conditions {
		c := env.WaitCondition(t, tc.p, xpv2.TypeSynced, corev1.ConditionFalse, testenv.WaitLong)
		if !strings.Contains(c.Message, tc.want) {
			t.Errorf("%s: Synced message %q does not say %q", name, c.Message, tc.want)
		}
		if strings.Contains(c.Message, "sk-valid-k3y9Qm2Xv7Lp") {
			t.Errorf("%s: the condition contains key material", name)
		}
	}

	// Immutable fields, on an object admission accepted.
	p := conditions["MissingSecret"].p
	env.Get(t, p)
	immutable := map[string]struct {
		edit func(*aiv1alpha1.AIProvider)
		want string
	}{
		"Name":      {func(p *aiv1alpha1.AIProvider) { p.Spec.ForProvider.Name = ptr.To("renamed") }, "forProvider.name is immutable"},
		"NameUnset": {func(p *aiv1alpha1.AIProvider) { p.Spec.ForProvider.Name = nil }, "forProvider.name is immutable"},
		"Type":      {func(p *aiv1alpha1.AIProvider) { p.Spec.ForProvider.Type = "azure" }, "forProvider.type is immutable"},
	}
	for name, tc := range immutable {
		// A merge patch, so the provider's own status updates cannot make
		// it fail with a conflict instead of the rule.
		c := p.DeepCopy()
		tc.edit(c)
		err := env.Kube.Patch(context.Background(), c, client.MergeFrom(p))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: update error = %v, want %q", name, err, tc.want)
		}
	}

	// No request reaches Coder: watched a little longer than one poll, so
	// any request the polls would make has been made.
	testenv.Never(t, pollInterval+time.Second, "a create or PATCH request reached Coder", func() (bool, string) {
		creates := env.Coder.Requests(fakecoder.EndpointProvidersCreate) - createsBefore
		patches := env.Coder.Requests(fakecoder.EndpointProviderUpdate) - patchesBefore
		return creates != 0 || patches != 0, fmt.Sprintf("%d create and %d PATCH requests, want 0", creates, patches)
	})

	// A spec that cannot be created is retried with backoff, not in a loop
	// of its own annotation updates.
	attempts := map[string]int32{}
	for _, e := range env.NamespaceEvents(t, ns) {
		if e.Reason == "CannotCreateExternalResource" {
			attempts[e.InvolvedObject.Name] += e.Count
		}
	}
	for name, tc := range conditions {
		n := attempts[tc.p.Name]
		t.Logf("%s: %d failed create attempts in %s", name, n, time.Since(tc.p.CreationTimestamp.Time).Round(time.Second))
		if n > 10 {
			t.Errorf("%s: %d failed create attempts within seconds, want backoff", name, n)
		}
	}
	for _, set := range []map[string]struct {
		p    *aiv1alpha1.AIProvider
		want string
	}{rejected, conditions} {
		for name, tc := range set {
			if tc.p.Spec.ForProvider.Name != nil && len(env.ProviderRows(*tc.p.Spec.ForProvider.Name)) > 0 {
				t.Errorf("%s: a provider named %q exists in Coder", name, *tc.p.Spec.ForProvider.Name)
			}
		}
	}
}

func TestAIProviderWithoutDeleteStaysInCoder(t *testing.T) {
	t.Run("NamespacedManagementPolicies", func(t *testing.T) {
		ns := env.Namespace(t)
		env.ProviderConfig(t, ns)
		p := newAIProvider(ns, "kept", "copilot", "https://api.githubcopilot.com")
		p.Spec.ManagementPolicies = xpv2.ManagementPolicies{
			xpv2.ManagementActionObserve, xpv2.ManagementActionCreate,
			xpv2.ManagementActionUpdate, xpv2.ManagementActionLateInitialize,
		}
		env.Create(t, p)
		env.WaitCondition(t, p, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
		id := meta.GetExternalName(p)
		env.Delete(t, p)
		env.WaitGone(t, p, testenv.WaitLong)
		if row, ok := env.ProviderRowByID(id); !ok || row.Deleted {
			t.Errorf("provider %s was deleted in Coder although the policies do not allow Delete", id)
		}
	})
	t.Run("ObserveOnlyImport", func(t *testing.T) {
		ns := env.Namespace(t)
		env.ProviderConfig(t, ns)
		// A provider made by hand in Coder, imported by its id as the
		// external name: shown in status, never changed, never deleted.
		made, err := env.CoderClient(t).CreateAIProvider(context.Background(), codersdk.CreateAIProviderRequest{
			Type: "openrouter", Name: testenv.UniqueProviderName("by-hand"), DisplayName: "Made by hand", Enabled: true,
			BaseURL: "https://openrouter.ai/api/v1", APIKeys: []string{"sk-by-hand-0123456789"},
		})
		if err != nil {
			t.Fatal(err)
		}
		patchesBefore := env.Coder.Requests(fakecoder.EndpointProviderUpdate)
		p := newAIProvider(ns, "imported", "openai", "https://api.openai.com/v1")
		p.Spec.ForProvider.Name = ptr.To(made.Name)
		p.Spec.ManagementPolicies = xpv2.ManagementPolicies{xpv2.ManagementActionObserve}
		meta.SetExternalName(p, made.ID.String())
		env.Create(t, p)
		env.WaitCondition(t, p, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
		at := p.Status.AtProvider
		if at.Name != made.Name || at.DisplayName != "Made by hand" || at.Type != "openrouter" || len(at.APIKeys) != 1 || at.APIKeys[0].Masked != made.APIKeys[0].Masked {
			t.Errorf("status.atProvider = %+v, want what Coder reports for %s", at, made.ID)
		}
		env.Delete(t, p)
		env.WaitGone(t, p, testenv.WaitLong)
		if row, ok := env.ProviderRowByID(made.ID.String()); !ok || row.Deleted || row.DisplayName != "Made by hand" {
			t.Errorf("the imported provider was changed or deleted in Coder")
		}
		if n := env.Coder.Requests(fakecoder.EndpointProviderUpdate) - patchesBefore; n != 0 {
			t.Errorf("%d PATCH requests for an Observe-only import, want 0", n)
		}
	})
	t.Run("ClusterOrphan", func(t *testing.T) {
		ns := env.Namespace(t)
		env.TokenSecret(t, ns, "coder-token", env.Coder.Token())
		env.Secret(t, ns, "anthropic", map[string]string{"key": "sk-orphan-k3y9Qm2Xv7Lp"})
		pc := clusterPC(ns, strings.ToLower(ns))
		env.Create(t, pc)
		t.Cleanup(func() { env.Delete(t, pc) })
		p := &clusteraiv1alpha1.AIProvider{ObjectMeta: metav1.ObjectMeta{Name: testenv.UniqueProviderName("orphan")}}
		p.Spec.ProviderConfigReference = &xpv2.Reference{Name: pc.Name}
		p.Spec.DeletionPolicy = xpv2.DeletionOrphan
		p.Spec.ForProvider.Type = "anthropic"
		p.Spec.ForProvider.BaseURL = "https://api.anthropic.com/"
		p.Spec.ForProvider.APIKeySecretRefs = []common.SecretKeySelector{{LocalSecretKeySelector: ref("anthropic", "key"), Namespace: ns}}
		env.Create(t, p)
		env.WaitCondition(t, p, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
		id := meta.GetExternalName(p)
		row, ok := env.ProviderRowByID(id)
		if !ok || row.Name != p.Name || !testenv.SameKeys(row.PlaintextKeys(), []string{"sk-orphan-k3y9Qm2Xv7Lp"}) {
			t.Fatalf("Coder's provider %s (found %t) is not named after metadata.name %q with the Secret's key", id, ok, p.Name)
		}
		env.Delete(t, p)
		env.WaitGone(t, p, testenv.WaitLong)
		if row, ok := env.ProviderRowByID(id); !ok || row.Deleted {
			t.Errorf("provider %s was deleted in Coder although deletionPolicy is Orphan", id)
		}
	})
}

// redactedRow is a row without its key material, for failure messages.
func redactedRow(r fakecoder.ProviderRow) fakecoder.ProviderRow {
	r.APIKeys = nil
	r.Settings = codersdk.AIProviderSettings{}
	return r
}

// TestAIProviderExamplesAreAdmitted applies every AIProvider example with a
// server-side dry run: one example per provider type in each scope, all
// valid for the CRDs' rules.
func TestAIProviderExamplesAreAdmitted(t *testing.T) {
	ns := env.Namespace(t)
	for _, scope := range []string{"namespaced", "cluster"} {
		files, err := filepath.Glob(filepath.Join(crds.RepoRoot(), "examples", scope, "aiprovider", "*.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		types := map[string]bool{}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			dec := k8syaml.NewYAMLOrJSONDecoder(bytes.NewReader(b), 4096)
			for {
				u := &unstructured.Unstructured{}
				if err := dec.Decode(&u.Object); errors.Is(err, io.EOF) {
					break
				} else if err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				if u.GetKind() != "AIProvider" {
					continue
				}
				if u.GetNamespace() != "" {
					u.SetNamespace(ns)
				}
				typ, _, _ := unstructured.NestedString(u.Object, "spec", "forProvider", "type")
				types[typ] = true
				if err := env.Kube.Create(context.Background(), u, client.DryRunAll); err != nil {
					t.Errorf("%s: %s %s is not admitted: %v", filepath.Base(f), u.GetAPIVersion(), u.GetName(), err)
				}
			}
		}
		if len(types) != 9 {
			t.Errorf("%s examples cover %d provider types, want all 9: %v", scope, len(types), types)
		}
	}
}

// waitForProviderPolls returns once each of n AIProviders has most likely
// completed a poll since the call: Coder answered 2n more reads of
// providers, and a provider's next read follows its previous reconcile.
func waitForProviderPolls(t *testing.T, n int) {
	t.Helper()
	before := env.Coder.Requests(fakecoder.EndpointProviderGet)
	testenv.Eventually(t, 2*pollInterval+testenv.WaitLong, fmt.Sprintf("%d more reads of providers", 2*n), func() (bool, string) {
		got := env.Coder.Requests(fakecoder.EndpointProviderGet) - before
		return got >= 2*n, fmt.Sprintf("%d reads", got)
	})
}
