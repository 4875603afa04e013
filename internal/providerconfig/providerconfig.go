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

// Package providerconfig is what a ProviderConfig is to the rest of the
// provider: one scope-neutral view of the three ProviderConfig kinds, which
// one a managed resource uses, its connection settings and credentials, the
// provider's finalizers, and the Session through which a managed resource
// reaches Coder (connect.go). It must not call Coder, and it owns no
// controller: the ProviderConfig controller is internal/controller/config.
package providerconfig

import (
	"bytes"
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	namespacedv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
)

const (
	errNoRef          = "managed resource has no providerConfigRef"
	errUnknownRefKind = "providerConfigRef.kind must be ProviderConfig or ClusterProviderConfig"
	errNotManaged     = "object does not reference a ProviderConfig"
	errGetPC          = "cannot get ProviderConfig"
	errGetSecret      = "cannot get credentials Secret"
	errNoSecretKey    = "credentials Secret has no such key"
	errEmptyToken     = "credentials Secret key is empty"
	errNoSecretRef    = "spec.credentials.secretRef is not set"
	errGetCASecret    = "cannot get CA Secret"
)

// Group kinds of the three ProviderConfig kinds.
var (
	// NamespacedKind is coder.m.crossplane.io ProviderConfig.
	NamespacedKind = namespacedv1alpha1.ProviderConfigGroupVersionKind.GroupKind()
	// ClusterKind is coder.m.crossplane.io ClusterProviderConfig.
	ClusterKind = namespacedv1alpha1.ClusterProviderConfigGroupVersionKind.GroupKind()
	// LegacyKind is coder.crossplane.io ProviderConfig, used by the
	// cluster-scoped managed resources.
	LegacyKind = clusterv1alpha1.ProviderConfigGroupVersionKind.GroupKind()
)

// Kinds are the three ProviderConfig kinds.
func Kinds() []schema.GroupKind {
	return []schema.GroupKind{NamespacedKind, ClusterKind, LegacyKind}
}

// A Ref identifies one ProviderConfig of any kind. Dependents are keyed by
// it, so a namespaced ProviderConfig "coder" in namespace A is never
// confused with one of the same name in namespace B.
type Ref struct {
	schema.GroupKind
	Namespace string
	Name      string
}

// String is the reference as humans read it in conditions and logs.
func (r Ref) String() string {
	if r.Namespace == "" {
		return fmt.Sprintf("%s %s", r.Kind, r.Name)
	}
	return fmt.Sprintf("%s %s/%s", r.Kind, r.Namespace, r.Name)
}

// IndexValue is the reference as stored in the dependents field index.
func (r Ref) IndexValue() string {
	return r.Group + "/" + r.Kind + "/" + r.Namespace + "/" + r.Name
}

// NamespacedName of the ProviderConfig object.
func (r Ref) NamespacedName() types.NamespacedName {
	return types.NamespacedName{Namespace: r.Namespace, Name: r.Name}
}

// RefOf resolves the ProviderConfig a managed resource uses.
func RefOf(mg resource.Managed) (Ref, error) {
	switch m := mg.(type) {
	case resource.TypedProviderConfigReferencer:
		ref := m.GetProviderConfigReference()
		if ref == nil {
			return Ref{}, errors.New(errNoRef)
		}
		switch ref.Kind {
		case NamespacedKind.Kind:
			return Ref{GroupKind: NamespacedKind, Namespace: mg.GetNamespace(), Name: ref.Name}, nil
		case ClusterKind.Kind:
			return Ref{GroupKind: ClusterKind, Name: ref.Name}, nil
		default:
			return Ref{}, errors.New(errUnknownRefKind)
		}
	case resource.ProviderConfigReferencer:
		ref := m.GetProviderConfigReference()
		if ref == nil {
			return Ref{}, errors.New(errNoRef)
		}
		return Ref{GroupKind: LegacyKind, Name: ref.Name}, nil
	default:
		return Ref{}, errors.New(errNotManaged)
	}
}

// RefOfConfig is the Ref of a ProviderConfig object.
func RefOfConfig(pc Object) Ref {
	return Ref{GroupKind: KindOf(pc), Namespace: pc.GetNamespace(), Name: pc.GetName()}
}

// KindOf is the group kind of a ProviderConfig object, from its Go type:
// typed objects read through a client carry no type metadata.
func KindOf(pc Object) schema.GroupKind {
	switch pc.(type) {
	case *namespacedv1alpha1.ProviderConfig:
		return NamespacedKind
	case *namespacedv1alpha1.ClusterProviderConfig:
		return ClusterKind
	case *clusterv1alpha1.ProviderConfig:
		return LegacyKind
	}
	return schema.GroupKind{}
}

// Object is a ProviderConfig of any of the three kinds.
type Object interface {
	resource.ProviderConfig
}

// New returns an empty ProviderConfig object of the given kind.
func New(gk schema.GroupKind) (Object, error) {
	switch gk {
	case NamespacedKind:
		return &namespacedv1alpha1.ProviderConfig{}, nil
	case ClusterKind:
		return &namespacedv1alpha1.ClusterProviderConfig{}, nil
	case LegacyKind:
		return &clusterv1alpha1.ProviderConfig{}, nil
	}
	return nil, errors.Errorf("unknown ProviderConfig kind %s", gk)
}

// Get reads the ProviderConfig a Ref names.
func Get(ctx context.Context, r client.Reader, ref Ref) (Object, error) {
	pc, err := New(ref.GroupKind)
	if err != nil {
		return nil, err
	}
	if err := r.Get(ctx, ref.NamespacedName(), pc); err != nil {
		return nil, errors.Wrapf(err, "%s %s", errGetPC, ref)
	}
	return pc, nil
}

// A SecretKeyRef is a Secret key with its namespace resolved.
type SecretKeyRef struct {
	Namespace string
	Name      string
	Key       string
}

// NamespacedName of the Secret.
func (s SecretKeyRef) NamespacedName() types.NamespacedName {
	return types.NamespacedName{Namespace: s.Namespace, Name: s.Name}
}

// Connection is the scope-neutral view of a ProviderConfig's spec.
type Connection struct {
	URL                string
	Token              *SecretKeyRef
	CA                 *SecretKeyRef
	InsecureSkipVerify bool
	Deletion           common.DeletionSpec
	// Sweep: this ProviderConfig may sweep Abandoned cleanup records.
	Sweep bool
	// Tenant is the namespace of a namespaced ProviderConfig; empty for
	// the cluster-scoped kinds, the platform team's. A tenant's clients
	// share its request slots.
	Tenant string
}

// Secrets are the Secrets the connection reads.
func (c Connection) Secrets() []SecretKeyRef {
	out := make([]SecretKeyRef, 0, 2)
	if c.Token != nil {
		out = append(out, *c.Token)
	}
	if c.CA != nil {
		out = append(out, *c.CA)
	}
	return out
}

// ConnectionOf normalises the spec of any ProviderConfig kind.
func ConnectionOf(pc Object) Connection {
	switch p := pc.(type) {
	case *namespacedv1alpha1.ProviderConfig:
		c := Connection{URL: p.Spec.URL, Tenant: p.Namespace}
		if r := p.Spec.Credentials.SecretRef; r != nil {
			c.Token = &SecretKeyRef{Namespace: p.Namespace, Name: r.Name, Key: r.Key}
		}
		if t := p.Spec.TLS; t != nil {
			c.InsecureSkipVerify = t.InsecureSkipVerify
			if r := t.CASecretRef; r != nil {
				c.CA = &SecretKeyRef{Namespace: p.Namespace, Name: r.Name, Key: r.Key}
			}
		}
		if p.Spec.Deletion != nil {
			c.Deletion = *p.Spec.Deletion
		}
		c.Sweep = p.Spec.Sweep == nil || *p.Spec.Sweep
		return c
	case *namespacedv1alpha1.ClusterProviderConfig:
		return connectionOfSpec(p.Spec)
	case *clusterv1alpha1.ProviderConfig:
		return connectionOfSpec(p.Spec)
	}
	return Connection{}
}

func connectionOfSpec(s common.ProviderConfigSpec) Connection {
	c := Connection{URL: s.URL}
	if r := s.Credentials.SecretRef; r != nil {
		c.Token = &SecretKeyRef{Namespace: r.Namespace, Name: r.Name, Key: r.Key}
	}
	if t := s.TLS; t != nil {
		c.InsecureSkipVerify = t.InsecureSkipVerify
		if r := t.CASecretRef; r != nil {
			c.CA = &SecretKeyRef{Namespace: r.Namespace, Name: r.Name, Key: r.Key}
		}
	}
	if s.Deletion != nil {
		c.Deletion = *s.Deletion
	}
	c.Sweep = s.Sweep == nil || *s.Sweep
	return c
}

// StatusOf returns the status every ProviderConfig kind shares.
func StatusOf(pc Object) *common.ProviderConfigStatus {
	switch p := pc.(type) {
	case *namespacedv1alpha1.ProviderConfig:
		return &p.Status
	case *namespacedv1alpha1.ClusterProviderConfig:
		return &p.Status
	case *clusterv1alpha1.ProviderConfig:
		return &p.Status
	}
	return &common.ProviderConfigStatus{}
}

// ClientConfig reads the Secrets a connection names and returns the settings
// of a Coder client. Errors name the Secret, never its contents.
func ClientConfig(ctx context.Context, r client.Reader, c Connection, timeout time.Duration) (coder.Config, error) {
	if c.Token == nil {
		return coder.Config{}, errors.New(errNoSecretRef)
	}
	token, err := secretValue(ctx, r, *c.Token, errGetSecret)
	if err != nil {
		return coder.Config{}, err
	}
	// A Coder token has no white space; a Secret made from a file or a
	// command's output (kubectl create secret --from-file) keeps its
	// trailing newline, which no HTTP header may carry.
	token = bytes.TrimSpace(token)
	if len(token) == 0 {
		return coder.Config{}, errors.Errorf("%s: %s %s", errEmptyToken, c.Token.NamespacedName(), c.Token.Key)
	}
	cfg := coder.Config{URL: c.URL, Token: string(token), InsecureSkipVerify: c.InsecureSkipVerify, Timeout: timeout, Tenant: c.Tenant}
	if c.CA != nil {
		if cfg.CABundle, err = secretValue(ctx, r, *c.CA, errGetCASecret); err != nil {
			return coder.Config{}, err
		}
	}
	return cfg, nil
}

func secretValue(ctx context.Context, r client.Reader, ref SecretKeyRef, errMsg string) ([]byte, error) {
	s := &corev1.Secret{}
	if err := r.Get(ctx, ref.NamespacedName(), s); err != nil {
		return nil, errors.Wrapf(err, "%s %s", errMsg, ref.NamespacedName())
	}
	v, ok := s.Data[ref.Key]
	if !ok {
		return nil, errors.Errorf("%s: Secret %s has no key %q", errNoSecretKey, ref.NamespacedName(), ref.Key)
	}
	return v, nil
}

// NewList returns an empty list of ProviderConfigs of the given kind.
func NewList(gk schema.GroupKind) (client.ObjectList, error) {
	switch gk {
	case NamespacedKind:
		return &namespacedv1alpha1.ProviderConfigList{}, nil
	case ClusterKind:
		return &namespacedv1alpha1.ClusterProviderConfigList{}, nil
	case LegacyKind:
		return &clusterv1alpha1.ProviderConfigList{}, nil
	}
	return nil, errors.Errorf("unknown ProviderConfig kind %s", gk)
}

// Items returns the ProviderConfigs of a list made by NewList.
func Items(l client.ObjectList) []Object {
	var out []Object
	switch pl := l.(type) {
	case *namespacedv1alpha1.ProviderConfigList:
		for i := range pl.Items {
			out = append(out, &pl.Items[i])
		}
	case *namespacedv1alpha1.ClusterProviderConfigList:
		for i := range pl.Items {
			out = append(out, &pl.Items[i])
		}
	case *clusterv1alpha1.ProviderConfigList:
		for i := range pl.Items {
			out = append(out, &pl.Items[i])
		}
	}
	return out
}
