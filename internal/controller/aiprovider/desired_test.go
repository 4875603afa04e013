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
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/coder/coder/v2/codersdk"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
)

func TestCreateRequestFollowsTheSpec(t *testing.T) {
	type args struct {
		name string
		f    common.AIProviderFields
		b    *common.BedrockFields
		c    Credentials
	}
	cases := map[string]struct {
		reason string
		args   args
		want   codersdk.CreateAIProviderRequest
	}{
		"Defaults": {
			reason: "unset enabled means enabled (the CRD default), unset display name and icon are empty so Coder shows the name",
			args: args{
				name: "openai",
				f:    common.AIProviderFields{Type: "openai", BaseURL: "https://api.openai.com/v1"},
				c:    Credentials{APIKeys: []string{"sk-a", "sk-b"}},
			},
			want: codersdk.CreateAIProviderRequest{
				Type: "openai", Name: "openai", Enabled: true, BaseURL: "https://api.openai.com/v1",
				APIKeys: []string{"sk-a", "sk-b"},
			},
		},
		"EveryField": {
			reason: "display name, icon and a disabled provider pass through",
			args: args{
				name: "claude",
				f: common.AIProviderFields{
					Type: "anthropic", BaseURL: "https://api.anthropic.com/",
					DisplayName: ptr.To("Claude"), Icon: ptr.To("/icon/claude.svg"), Enabled: ptr.To(false),
				},
				c: Credentials{APIKeys: []string{"k"}},
			},
			want: codersdk.CreateAIProviderRequest{
				Type: "anthropic", Name: "claude", DisplayName: "Claude", Icon: "/icon/claude.svg",
				Enabled: false, BaseURL: "https://api.anthropic.com/", APIKeys: []string{"k"},
			},
		},
		"BedrockRegionFromRuntimeURL": {
			reason: "an omitted region comes from a canonical bedrock-runtime URL; the access key pair goes into the settings",
			args: args{
				name: "bedrock",
				f:    common.AIProviderFields{Type: "bedrock", BaseURL: "https://bedrock-runtime.eu-west-1.amazonaws.com"},
				b:    &common.BedrockFields{Model: "m", SmallFastModel: "s", RoleARN: "arn:aws:iam::1:role/r"},
				c:    Credentials{AccessKeyID: ptr.To("AKIA"), SecretAccessKey: ptr.To("secret")},
			},
			want: codersdk.CreateAIProviderRequest{
				Type: "bedrock", Name: "bedrock", Enabled: true, BaseURL: "https://bedrock-runtime.eu-west-1.amazonaws.com",
				Settings: codersdk.AIProviderSettings{Bedrock: &codersdk.AIProviderBedrockSettings{
					Region: "eu-west-1", Model: "m", SmallFastModel: "s", RoleARN: "arn:aws:iam::1:role/r",
					AccessKey: ptr.To("AKIA"), AccessKeySecret: ptr.To("secret"),
				}},
			},
		},
		"ExplicitRegionWins": {
			reason: "a region in the spec is sent as it is, whatever the URL says",
			args: args{
				name: "mantle",
				f:    common.AIProviderFields{Type: "anthropic", BaseURL: "https://bedrock-mantle.us-east-1.api.aws/anthropic"},
				b:    &common.BedrockFields{Region: "us-west-2", Protocol: "mantle"},
			},
			want: codersdk.CreateAIProviderRequest{
				Type: "anthropic", Name: "mantle", Enabled: true, BaseURL: "https://bedrock-mantle.us-east-1.api.aws/anthropic",
				Settings: codersdk.AIProviderSettings{Bedrock: &codersdk.AIProviderBedrockSettings{Region: "us-west-2", Protocol: "mantle"}},
			},
		},
		"NoRegionFromOtherURLs": {
			reason: "a proxy in front of Bedrock gives no region",
			args: args{
				name: "proxied",
				f:    common.AIProviderFields{Type: "bedrock", BaseURL: "https://bedrock.proxy.example.com"},
				b:    &common.BedrockFields{RoleARN: "arn:aws:iam::1:role/r"},
			},
			want: codersdk.CreateAIProviderRequest{
				Type: "bedrock", Name: "proxied", Enabled: true, BaseURL: "https://bedrock.proxy.example.com",
				Settings: codersdk.AIProviderSettings{Bedrock: &codersdk.AIProviderBedrockSettings{RoleARN: "arn:aws:iam::1:role/r"}},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := CreateRequest(tc.args.name, tc.args.f, tc.args.b, tc.args.c)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nCreateRequest(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestRegionIsDerivedFromCanonicalBedrockURLsOnly(t *testing.T) {
	cases := map[string]struct {
		url  string
		want string
	}{
		"Runtime":             {url: "https://bedrock-runtime.us-east-1.amazonaws.com", want: "us-east-1"},
		"RuntimeSlash":        {url: "https://bedrock-runtime.us-east-1.amazonaws.com/", want: "us-east-1"},
		"RuntimeUpperCase":    {url: "HTTPS://Bedrock-Runtime.EU-Central-1.AmazonAWS.com", want: "eu-central-1"},
		"RuntimeFIPS":         {url: "https://bedrock-runtime-fips.us-gov-west-1.amazonaws.com", want: "us-gov-west-1"},
		"RuntimeChina":        {url: "https://bedrock-runtime.cn-north-1.amazonaws.com.cn", want: "cn-north-1"},
		"Mantle":              {url: "https://bedrock-mantle.us-east-1.api.aws", want: "us-east-1"},
		"MantleAnthropicPath": {url: "https://bedrock-mantle.ap-southeast-2.api.aws/anthropic", want: "ap-southeast-2"},
		"HTTP":                {url: "http://bedrock-runtime.us-east-1.amazonaws.com", want: ""},
		"OtherPath":           {url: "https://bedrock-runtime.us-east-1.amazonaws.com/model", want: ""},
		"Proxy":               {url: "https://bedrock.example.com", want: ""},
		"LookAlikeHost":       {url: "https://bedrock-runtime.us-east-1.amazonaws.com.evil.example", want: ""},
		"ControlPlane":        {url: "https://bedrock.us-east-1.amazonaws.com", want: ""},
		"NoRegion":            {url: "https://bedrock-runtime.amazonaws.com", want: ""},
		"Empty":               {url: "", want: ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := RegionFromBaseURL(tc.url); got != tc.want {
				t.Errorf("RegionFromBaseURL(%q) = %q, want %q", tc.url, got, tc.want)
			}
		})
	}
}

func TestFingerprintChangesWithTheMaterialOnly(t *testing.T) {
	const uid = "6b0e9c1a-0000-4000-8000-000000000001"
	base := Credentials{APIKeys: []string{"sk-one", "sk-two"}}
	fp := Fingerprint(testKey, uid, base)
	if !strings.HasPrefix(fp, FingerprintPrefix) || len(fp) != len(FingerprintPrefix)+64 {
		t.Fatalf("Fingerprint = %q, want %s and 64 hex digits", fp, FingerprintPrefix)
	}
	cases := map[string]struct {
		reason string
		salt   string
		c      Credentials
		same   bool
	}{
		"Reordered": {
			reason: "reordering the references is no rotation",
			salt:   uid, c: Credentials{APIKeys: []string{"sk-two", "sk-one"}}, same: true,
		},
		"Rotated": {
			reason: "a changed key value changes the fingerprint",
			salt:   uid, c: Credentials{APIKeys: []string{"sk-one", "sk-three"}},
		},
		"KeyRemoved": {
			reason: "fewer keys is a change",
			salt:   uid, c: Credentials{APIKeys: []string{"sk-one"}},
		},
		"Duplicated": {
			reason: "a key listed twice is stored twice in Coder",
			salt:   uid, c: Credentials{APIKeys: []string{"sk-one", "sk-two", "sk-two"}},
		},
		"OtherObject": {
			reason: "the same keys in another object (another UID) give an unrelated fingerprint",
			salt:   "6b0e9c1a-0000-4000-8000-000000000002", c: base,
		},
		"AccessKeyPairAdded": {
			reason: "the Bedrock access key pair is part of the material",
			salt:   uid, c: Credentials{APIKeys: base.APIKeys, AccessKeyID: ptr.To("AKIA"), SecretAccessKey: ptr.To("s")},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := Fingerprint(testKey, tc.salt, tc.c)
			if (got == fp) != tc.same {
				t.Errorf("%s\nFingerprint equal to the base = %t, want %t", tc.reason, got == fp, tc.same)
			}
		})
	}

	// Length prefixes keep key boundaries: a+bc is not ab+c, in the key list
	// or across the two halves of the access key pair.
	if Fingerprint(testKey, uid, Credentials{APIKeys: []string{"a", "bc"}}) == Fingerprint(testKey, uid, Credentials{APIKeys: []string{"ab", "c"}}) {
		t.Errorf("API keys a,bc and ab,c share a fingerprint")
	}
	a := Fingerprint(testKey, uid, Credentials{AccessKeyID: ptr.To("ab"), SecretAccessKey: ptr.To("c")})
	b := Fingerprint(testKey, uid, Credentials{AccessKeyID: ptr.To("a"), SecretAccessKey: ptr.To("bc")})
	if a == b {
		t.Errorf("access key pairs ab/c and a/bc share a fingerprint")
	}
	if strings.Contains(fp, "sk-one") {
		t.Errorf("the fingerprint contains key material")
	}
}

// The fingerprint is in status, beside Coder's masked key (the first and
// last characters of each): an unkeyed hash of a short key could be found
// by trying every key that fits the mask. Keyed with a secret only the
// provider holds, it cannot be tested without that secret.
func TestFingerprintCannotBeComputedWithoutTheKey(t *testing.T) {
	const uid = "6b0e9c1a-0000-4000-8000-000000000001"
	c := Credentials{APIKeys: []string{"sk-12charkey"}}
	fp := Fingerprint(testKey, uid, c)
	if again := Fingerprint(slices.Clone(testKey), uid, Credentials{APIKeys: []string{"sk-12charkey"}}); again != fp {
		t.Errorf("the same key and inputs give %q and %q, want one fingerprint", fp, again)
	}
	want := hmac.New(sha256.New, testKey)
	writeCredentials(want, fingerprintDomain, uid, c)
	if fp != FingerprintPrefix+hex.EncodeToString(want.Sum(nil)) {
		t.Errorf("Fingerprint = %q, want the HMAC-SHA256 of the credentials keyed with the provider's key", fp)
	}
	other := slices.Clone(testKey)
	other[0] ^= 1
	guesses := map[string]string{
		"another key":               Fingerprint(other, uid, c),
		"no key":                    Fingerprint(nil, uid, c),
		"the unkeyed hash":          LegacyFingerprint(uid, c),
		"SHA-256 of the plain key":  "sha256:" + sha256Hex(c.APIKeys[0]),
		"HMAC keyed with the UID":   hmacHex([]byte(uid), c.APIKeys[0]),
		"HMAC keyed with the value": hmacHex([]byte(c.APIKeys[0]), uid),
	}
	for what, guess := range guesses {
		if strings.TrimPrefix(guess, "sha256:") == strings.TrimPrefix(fp, FingerprintPrefix) || guess == fp {
			t.Errorf("the fingerprint equals %s: someone without the provider's key can compute it", what)
		}
	}
}

func sha256Hex(msg string) string {
	h := sha256.Sum256([]byte(msg))
	return hex.EncodeToString(h[:])
}

func hmacHex(key []byte, msg string) string {
	h := hmac.New(sha256.New, key)
	_, _ = h.Write([]byte(msg))
	return hex.EncodeToString(h.Sum(nil))
}

func TestCredentialsNeverPrintTheirValues(t *testing.T) {
	c := Credentials{APIKeys: []string{"sk-live-secret"}, AccessKeyID: ptr.To("AKIASECRET"), SecretAccessKey: ptr.To("aws-secret")}
	d := Desired{Request: CreateRequest("p", common.AIProviderFields{Type: "openai"}, nil, c)}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		for _, s := range []string{fmt.Sprintf(verb, c), fmt.Sprintf(verb, d), fmt.Sprintf(verb, &c)} {
			for _, secret := range []string{"sk-live-secret", "AKIASECRET", "aws-secret"} {
				if strings.Contains(s, secret) {
					t.Errorf("%s prints %q", verb, s)
				}
			}
		}
	}
}

func TestReadCredentialsFromSecrets(t *testing.T) {
	secret := func(name string, data map[string]string) *corev1.Secret {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: name}, Data: map[string][]byte{}}
		for k, v := range data {
			s.Data[k] = []byte(v)
		}
		return s
	}
	kube := fake.NewClientBuilder().WithObjects(
		secret("openai", map[string]string{"key": "sk-file-based\n", "blank": " \n", "other": "sk-other"}),
		secret("aws", map[string]string{"id": "AKIAEXAMPLE", "secret": "aws-secret-value"}),
	).Build()
	ref := func(name, key string) common.SecretKeySelector {
		return common.SecretKeySelector{LocalSecretKeySelector: common.LocalSecretKeySelector{Name: name, Key: key}, Namespace: "team"}
	}
	refPtr := func(name, key string) *common.SecretKeySelector { r := ref(name, key); return &r }

	cases := map[string]struct {
		reason  string
		refs    common.AIProviderSecretRefs
		want    Credentials
		wantErr string
	}{
		"Trimmed": {
			reason: "the newline a file-based Secret keeps is removed; Coder refuses surrounding whitespace",
			refs:   common.AIProviderSecretRefs{APIKeys: []common.SecretKeySelector{ref("openai", "key"), ref("openai", "other")}},
			want:   Credentials{APIKeys: []string{"sk-file-based", "sk-other"}},
		},
		"AccessKeyPair": {
			reason: "the Bedrock pair is read from its Secret",
			refs:   common.AIProviderSecretRefs{AccessKeyID: refPtr("aws", "id"), SecretAccessKey: refPtr("aws", "secret")},
			want:   Credentials{AccessKeyID: ptr.To("AKIAEXAMPLE"), SecretAccessKey: ptr.To("aws-secret-value")},
		},
		"MissingSecret": {
			reason:  "the error names the field and the Secret",
			refs:    common.AIProviderSecretRefs{APIKeys: []common.SecretKeySelector{ref("openai", "key"), ref("gone", "key")}},
			wantErr: "cannot read spec.forProvider.apiKeySecretRefs[1]: cannot get Secret team/gone",
		},
		"MissingKey": {
			reason:  "a key the Secret does not have",
			refs:    common.AIProviderSecretRefs{AccessKeyID: refPtr("aws", "nope"), SecretAccessKey: refPtr("aws", "secret")},
			wantErr: `cannot read spec.forProvider.bedrock.accessKeyIDSecretRef: Secret team/aws has no key "nope"`,
		},
		"BlankValue": {
			reason:  "a value that is only whitespace is empty, and Coder refuses empty keys",
			refs:    common.AIProviderSecretRefs{APIKeys: []common.SecretKeySelector{ref("openai", "blank")}},
			wantErr: `cannot read spec.forProvider.apiKeySecretRefs[0]: key "blank" of Secret team/openai is empty`,
		},
		"HalfAPair": {
			reason:  "an access key id without its secret is refused",
			refs:    common.AIProviderSecretRefs{AccessKeyID: refPtr("aws", "id")},
			wantErr: errAccessKeyPair,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := ReadCredentials(context.Background(), kube, tc.refs)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("%s\nReadCredentials error = %v, want it to contain %q", tc.reason, err, tc.wantErr)
				}
				for _, v := range []string{"sk-file-based", "sk-other", "AKIAEXAMPLE", "aws-secret-value"} {
					if strings.Contains(err.Error(), v) {
						t.Errorf("the error contains a secret value: %v", err)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("%s\nReadCredentials: %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want.APIKeys, got.APIKeys); diff != "" {
				t.Errorf("%s\nAPIKeys: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.AccessKeyID, got.AccessKeyID); diff != "" {
				t.Errorf("%s\nAccessKeyID: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.SecretAccessKey, got.SecretAccessKey); diff != "" {
				t.Errorf("%s\nSecretAccessKey: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
