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

package interleave

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	clusteraiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/ai/v1alpha1"
	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	namespacedv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/v1alpha1"
)

// tokenKey is the data key of every token Secret; apiKeyKey that of the
// AIProviders' API key Secrets.
const (
	tokenKey  = "token"
	apiKeyKey = "key"
)

// bounds are the deletion bounds of a ProviderConfig: seconds, through its
// own knobs, so that a run stays short while every bound still applies.
func bounds(short bool) *common.DeletionSpec {
	d := func(s time.Duration) *metav1.Duration { return &metav1.Duration{Duration: s} }
	if short {
		return &common.DeletionSpec{
			DependentTimeout: d(8 * time.Second), LiveDependentTimeout: d(3 * time.Second), UnreachableTimeout: d(3 * time.Second),
			Grace: &common.GraceSpec{Base: d(2 * time.Second), PerDependent: d(time.Second), Max: d(10 * time.Second)},
		}
	}
	return &common.DeletionSpec{
		DependentTimeout: d(20 * time.Second), LiveDependentTimeout: d(5 * time.Second), UnreachableTimeout: d(5 * time.Second),
		Grace: &common.GraceSpec{Base: d(5 * time.Second), PerDependent: d(time.Second), Max: d(15 * time.Second)},
	}
}

// holdBound is the longest a ProviderConfig of these bounds may hold:
// dependents, then the grace at its maximum.
func holdBound(short bool) time.Duration {
	b := bounds(short)
	return b.DependentTimeout.Duration + b.Grace.Max.Duration
}

// pcObject is the ProviderConfig pc, reading its token from the Secret
// named secret in its Secret's namespace.
func (w World) pcObject(pc PC, url, secret string) client.Object {
	s := w.Secrets[pc.Secret]
	switch pc.Kind {
	case Cluster, Legacy:
		spec := common.ProviderConfigSpec{
			URL: url,
			Credentials: common.Credentials{Source: common.CredentialsSourceSecret, SecretRef: &common.SecretKeySelector{
				LocalSecretKeySelector: common.LocalSecretKeySelector{Name: secret, Key: tokenKey}, Namespace: s.Namespace,
			}},
			Deletion: bounds(pc.Short),
		}
		if pc.Kind == Cluster {
			return &namespacedv1alpha1.ClusterProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: pc.Name}, Spec: spec}
		}
		return &clusterv1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: pc.Name}, Spec: spec}
	}
	return &namespacedv1alpha1.ProviderConfig{
		ObjectMeta: metav1.ObjectMeta{Namespace: pc.Namespace, Name: pc.Name},
		Spec: common.LocalProviderConfigSpec{
			URL: url,
			Credentials: common.LocalCredentials{Source: common.CredentialsSourceSecret, SecretRef: &common.LocalSecretKeySelector{
				Name: secret, Key: tokenKey,
			}},
			Deletion: bounds(pc.Short),
		},
	}
}

// pcKey is the ProviderConfig pc's object, for reads and deletes.
func (w World) pcKey(pc PC) client.Object {
	switch pc.Kind {
	case Cluster:
		return &namespacedv1alpha1.ClusterProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: pc.Name}}
	case Legacy:
		return &clusterv1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: pc.Name}}
	}
	return &namespacedv1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: pc.Namespace, Name: pc.Name}}
}

// pcNamed is the index of the world's ProviderConfig a record names: a
// ClusterProviderConfig, a legacy cluster-scoped ProviderConfig (no
// namespace) or a namespaced one.
func (w World) pcNamed(rec clusterv1alpha1.RecordedProviderConfig) (int, bool) {
	for i, pc := range w.PCs {
		kind := "ProviderConfig"
		if pc.Kind == Cluster {
			kind = "ClusterProviderConfig"
		}
		if kind == rec.Kind && pc.Namespace == rec.Namespace && pc.Name == rec.Name {
			return i, true
		}
	}
	return 0, false
}

// apiKeySecret is where an AIProvider or an MCPServer reads its API key.
func apiKeySecret(m MR, system string) Secret {
	ns := m.Namespace
	if ns == "" {
		ns = system
	}
	return Secret{Namespace: ns, Name: m.Name + "-apikey"}
}

// connSecret is where a key publishes its plaintext.
func connSecret(m MR, system string) Secret {
	ns := m.Namespace
	if ns == "" {
		ns = system
	}
	return Secret{Namespace: ns, Name: m.Name + "-conn"}
}

// mrObject is the resource m, new, importing importID when it imports.
func (w World) mrObject(m MR, importID string) client.Object {
	pc := w.PCs[m.PC]
	var policies xpv2.ManagementPolicies
	switch {
	case m.ObserveOnly:
		policies = xpv2.ManagementPolicies{xpv2.ManagementActionObserve}
	case m.Orphan && m.Namespace != "":
		// Namespaced resources have no deletionPolicy: leaving Delete out
		// is their Orphan.
		policies = xpv2.ManagementPolicies{xpv2.ManagementActionObserve, xpv2.ManagementActionCreate, xpv2.ManagementActionUpdate, xpv2.ManagementActionLateInitialize}
	}
	var rotation *common.AIGatewayKeyRotation
	if m.Rotating {
		rotation = &common.AIGatewayKeyRotation{Every: &metav1.Duration{Duration: 20 * time.Second}, SettleWindow: &metav1.Duration{Duration: 4 * time.Second}}
	}
	provider := common.AIProviderFields{Type: common.AIProviderType("openai"), Name: ptr.To(m.CoderName), BaseURL: "https://llm.example.com/v1"}
	meta0 := metav1.ObjectMeta{Namespace: m.Namespace, Name: m.Name}
	key := apiKeySecret(m, w.System)
	conn := connSecret(m, w.System)
	var o client.Object
	switch {
	case m.Kind == MCP:
		o = w.mcpObject(m, pc, policies)
	case m.Namespace != "" && m.Kind == Key:
		k := &aiv1alpha1.AIGatewayKey{ObjectMeta: meta0}
		k.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: pcRefKind(pc), Name: pc.Name}
		k.Spec.WriteConnectionSecretToReference = &xpv2.LocalSecretReference{Name: conn.Name}
		k.Spec.ManagementPolicies = policies
		k.Spec.ForProvider.Rotation = rotation
		o = k
	case m.Namespace != "":
		p := &aiv1alpha1.AIProvider{ObjectMeta: meta0}
		p.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: pcRefKind(pc), Name: pc.Name}
		p.Spec.ManagementPolicies = policies
		p.Spec.ForProvider.AIProviderFields = provider
		p.Spec.ForProvider.APIKeySecretRefs = []common.LocalSecretKeySelector{{Name: key.Name, Key: apiKeyKey}}
		o = p
	case m.Kind == Key:
		k := &clusteraiv1alpha1.AIGatewayKey{ObjectMeta: meta0}
		k.Spec.ProviderConfigReference = &xpv2.Reference{Name: pc.Name}
		k.Spec.WriteConnectionSecretToReference = &xpv2.SecretReference{Namespace: conn.Namespace, Name: conn.Name}
		k.Spec.ManagementPolicies = policies
		k.Spec.ForProvider.Rotation = rotation
		if m.Orphan {
			k.Spec.DeletionPolicy = xpv2.DeletionOrphan
		}
		o = k
	default:
		p := &clusteraiv1alpha1.AIProvider{ObjectMeta: meta0}
		p.Spec.ProviderConfigReference = &xpv2.Reference{Name: pc.Name}
		p.Spec.ManagementPolicies = policies
		if m.Orphan {
			p.Spec.DeletionPolicy = xpv2.DeletionOrphan
		}
		p.Spec.ForProvider.AIProviderFields = provider
		p.Spec.ForProvider.APIKeySecretRefs = []common.SecretKeySelector{{
			LocalSecretKeySelector: common.LocalSecretKeySelector{Name: key.Name, Key: apiKeyKey}, Namespace: key.Namespace,
		}}
		o = p
	}
	if importID != "" {
		meta.SetExternalName(o, importID)
	}
	return o
}

// mrKey is resource m's object, for reads and deletes.
func mrKey(m MR) client.Object {
	meta0 := metav1.ObjectMeta{Namespace: m.Namespace, Name: m.Name}
	switch {
	case m.Namespace != "" && m.Kind == MCP:
		return &aiv1alpha1.MCPServer{ObjectMeta: meta0}
	case m.Kind == MCP:
		return &clusteraiv1alpha1.MCPServer{ObjectMeta: meta0}
	case m.Namespace != "" && m.Kind == Key:
		return &aiv1alpha1.AIGatewayKey{ObjectMeta: meta0}
	case m.Namespace != "":
		return &aiv1alpha1.AIProvider{ObjectMeta: meta0}
	case m.Kind == Key:
		return &clusteraiv1alpha1.AIGatewayKey{ObjectMeta: meta0}
	}
	return &clusteraiv1alpha1.AIProvider{ObjectMeta: meta0}
}

func pcRefKind(pc PC) string {
	if pc.Kind == Cluster {
		return "ClusterProviderConfig"
	}
	return "ProviderConfig"
}

func secretObject(s Secret, key, value string) *corev1.Secret {
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: s.Namespace, Name: s.Name}, StringData: map[string]string{key: value}}
}

// mcpObject is the MCP server m, new: Coder calls it with the API key of
// its Secret (apiKeySecret).
func (w World) mcpObject(m MR, pc PC, policies xpv2.ManagementPolicies) client.Object {
	meta0 := metav1.ObjectMeta{Namespace: m.Namespace, Name: m.Name}
	key := apiKeySecret(m, w.System)
	fields := common.MCPServerFields{Slug: ptr.To(m.CoderName), URL: "https://mcp.example.com/" + m.Name, AuthType: common.MCPServerAuthAPIKey}
	if m.Namespace != "" {
		s := &aiv1alpha1.MCPServer{ObjectMeta: meta0}
		s.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: pcRefKind(pc), Name: pc.Name}
		s.Spec.ManagementPolicies = policies
		s.Spec.ForProvider.MCPServerFields = fields
		s.Spec.ForProvider.APIKey = &aiv1alpha1.MCPServerAPIKey{Header: "Authorization", ValueSecretRef: common.LocalSecretKeySelector{Name: key.Name, Key: apiKeyKey}}
		return s
	}
	s := &clusteraiv1alpha1.MCPServer{ObjectMeta: meta0}
	s.Spec.ProviderConfigReference = &xpv2.Reference{Name: pc.Name}
	s.Spec.ManagementPolicies = policies
	if m.Orphan {
		s.Spec.DeletionPolicy = xpv2.DeletionOrphan
	}
	s.Spec.ForProvider.MCPServerFields = fields
	s.Spec.ForProvider.APIKey = &clusteraiv1alpha1.MCPServerAPIKey{Header: "Authorization", ValueSecretRef: common.SecretKeySelector{
		LocalSecretKeySelector: common.LocalSecretKeySelector{Name: key.Name, Key: apiKeyKey}, Namespace: key.Namespace,
	}}
	return s
}
