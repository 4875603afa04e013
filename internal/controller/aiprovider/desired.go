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
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"regexp"
	"slices"
	"strings"

	"github.com/coder/coder/v2/codersdk"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/controller/managedkind"
)

// Credentials are the secret values of one AIProvider, read from its
// Secrets. They go to Coder and into a keyed fingerprint, nowhere else.
type Credentials struct {
	APIKeys []string
	// AccessKeyID and SecretAccessKey are both set or both nil.
	AccessKeyID     *string
	SecretAccessKey *string
}

// Format prints Credentials as counts only, for every verb, so a stray log
// line or error can never carry the material.
func (c Credentials) Format(f fmt.State, _ rune) {
	_, _ = fmt.Fprintf(f, "aiprovider.Credentials{APIKeys: %d, AccessKeyPair: %t}", len(c.APIKeys), c.AccessKeyID != nil)
}

// Desired is what Coder should hold for one AIProvider: the create request
// built from the spec and the Secrets, and the fingerprint of the secret
// values in it. The request carries plaintext.
type Desired struct {
	Request     codersdk.CreateAIProviderRequest
	Fingerprint string
	// APIKeyFingerprints are KeyFingerprint of each of Request.APIKeys, in
	// their order.
	APIKeyFingerprints []string
	// LegacyFingerprint is the unkeyed fingerprint of the same values, to
	// recognise a status an earlier release wrote; never stored or printed.
	LegacyFingerprint string
	// NameFromMetadata is true when the spec leaves forProvider.name unset.
	NameFromMetadata bool
}

// Format prints Desired without its secret values.
func (d Desired) Format(f fmt.State, _ rune) {
	_, _ = fmt.Fprintf(f, "aiprovider.Desired{Type: %q, Name: %q, APIKeys: %d, Fingerprint: %q}",
		d.Request.Type, d.Request.Name, len(d.Request.APIKeys), d.Fingerprint)
}

// ProviderName is the Coder-wide name of r's provider: forProvider.name, or
// metadata.name when that is unset.
func ProviderName(r Resource) string {
	if n := r.ProviderFields().Name; n != nil && *n != "" {
		return *n
	}
	return r.GetName()
}

// CreateRequest builds the request that creates the provider the spec
// describes, with the given secret values. A Bedrock region left unset is
// derived from a canonical Bedrock base URL.
func CreateRequest(name string, f common.AIProviderFields, b *common.BedrockFields, c Credentials) codersdk.CreateAIProviderRequest {
	req := codersdk.CreateAIProviderRequest{
		Type:    codersdk.AIProviderType(f.Type),
		Name:    name,
		Enabled: f.Enabled == nil || *f.Enabled,
		BaseURL: f.BaseURL,
		APIKeys: slices.Clone(c.APIKeys),
	}
	if f.DisplayName != nil {
		req.DisplayName = *f.DisplayName
	}
	if f.Icon != nil {
		req.Icon = *f.Icon
	}
	if b != nil {
		region := b.Region
		if region == "" {
			region = RegionFromBaseURL(f.BaseURL)
		}
		req.Settings.Bedrock = &codersdk.AIProviderBedrockSettings{
			Region:          region,
			Model:           b.Model,
			SmallFastModel:  b.SmallFastModel,
			RoleARN:         b.RoleARN,
			Protocol:        codersdk.AIProviderBedrockProtocol(b.Protocol),
			AccessKey:       c.AccessKeyID,
			AccessKeySecret: c.SecretAccessKey,
		}
	}
	return req
}

// canonicalBedrockURL matches the endpoints AWS publishes for Bedrock: the
// InvokeModel runtime (also FIPS and China) and mantle, whose base URL may
// end in /anthropic. The CEL rules of the AIProvider CRDs use the same
// pattern; keep them in step.
var canonicalBedrockURL = regexp.MustCompile(`(?i)^https://bedrock-(?:runtime(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?|mantle\.([a-z0-9-]+)\.api\.aws(?:/anthropic)?)/?$`)

// RegionFromBaseURL returns the AWS region of a canonical Bedrock base URL,
// or "" for any other URL.
func RegionFromBaseURL(baseURL string) string {
	m := canonicalBedrockURL.FindStringSubmatch(baseURL)
	if m == nil {
		return ""
	}
	return strings.ToLower(m[1] + m[2])
}

// fingerprintDomain separates this hash from any other use of the key.
const fingerprintDomain = "provider-coder/aiprovider/credentials/v2"

// FingerprintPrefix starts every fingerprint Fingerprint makes.
const FingerprintPrefix = "hmac-sha256:"

// Fingerprint is an HMAC-SHA256 of the credential material, keyed with a
// secret only the provider holds (package fingerprintkey), so a changed
// Secret is noticed without storing the material, and a fingerprint in
// status cannot be tested against guessed keys by whoever reads status
// (where Coder's masked key already gives away part of each). The object's
// UID is hashed too: the same key in two objects gives two unrelated
// fingerprints. Every value is length-prefixed, so no two different sets of
// credentials hash the same input; API keys are sorted, so reordering the
// references rotates nothing.
func Fingerprint(key []byte, uid string, c Credentials) string {
	h := hmac.New(sha256.New, key)
	writeCredentials(h, fingerprintDomain, uid, c)
	return FingerprintPrefix + hex.EncodeToString(h.Sum(nil))
}

// legacyDomain and legacyPrefix are the unkeyed fingerprint of releases
// before the keyed one.
const (
	legacyDomain = "provider-coder/aiprovider/credentials/v1"
	legacyPrefix = "sha256:"
)

// LegacyFingerprint is the fingerprint releases before Fingerprint kept in
// status: a SHA-256 salted only with the public UID. It is computed only to
// recognise such a status, whose credentials are then known unchanged and
// are not sent again; it is never written.
func LegacyFingerprint(uid string, c Credentials) string {
	h := sha256.New()
	writeCredentials(h, legacyDomain, uid, c)
	return legacyPrefix + hex.EncodeToString(h.Sum(nil))
}

// IsLegacyFingerprint reports whether fp is of the unkeyed kind.
func IsLegacyFingerprint(fp string) bool { return strings.HasPrefix(fp, legacyPrefix) }

// writeCredentials writes the domain, the UID and the credentials to h,
// each value length-prefixed.
func writeCredentials(h hash.Hash, domain, uid string, c Credentials) {
	write := func(s string) {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		_, _ = h.Write(n[:])
		_, _ = h.Write([]byte(s))
	}
	optional := func(p *string) {
		if p == nil {
			write("absent")
			return
		}
		write("present")
		write(*p)
	}
	write(domain)
	write(uid)
	keys := slices.Sorted(slices.Values(c.APIKeys))
	write(fmt.Sprint(len(keys)))
	for _, k := range keys {
		write(k)
	}
	optional(c.AccessKeyID)
	optional(c.SecretAccessKey)
}

// Spec field paths of the secret references, for errors.
const (
	fieldAPIKeys         = "spec.forProvider.apiKeySecretRefs"
	fieldAccessKeyID     = "spec.forProvider.bedrock.accessKeyIDSecretRef"
	fieldSecretAccessKey = "spec.forProvider.bedrock.secretAccessKeySecretRef"
)

// ReadCredentials reads every secret value r refers to. Surrounding
// whitespace, such as the newline a file-based Secret often keeps, is
// removed: Coder stores keys verbatim and refuses surrounding whitespace.
// Errors name the field and the Secret, never a value.
func ReadCredentials(ctx context.Context, kube client.Reader, refs common.AIProviderSecretRefs) (Credentials, error) {
	var c Credentials
	for i, ref := range refs.APIKeys {
		v, err := managedkind.SecretValue(ctx, kube, fmt.Sprintf("%s[%d]", fieldAPIKeys, i), ref)
		if err != nil {
			return Credentials{}, err
		}
		c.APIKeys = append(c.APIKeys, v)
	}
	if refs.AccessKeyID != nil {
		v, err := managedkind.SecretValue(ctx, kube, fieldAccessKeyID, *refs.AccessKeyID)
		if err != nil {
			return Credentials{}, err
		}
		c.AccessKeyID = &v
	}
	if refs.SecretAccessKey != nil {
		v, err := managedkind.SecretValue(ctx, kube, fieldSecretAccessKey, *refs.SecretAccessKey)
		if err != nil {
			return Credentials{}, err
		}
		c.SecretAccessKey = &v
	}
	if (c.AccessKeyID == nil) != (c.SecretAccessKey == nil) {
		return Credentials{}, errors.New(errAccessKeyPair)
	}
	return c, nil
}
