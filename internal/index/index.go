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

// Package index owns every field index of the manager's cache, registered
// in one place. A field is named "<indexed kind>.<what it maps to>". Readers
// list by these names; nothing else registers an index.
package index

import (
	"context"
	"reflect"
	"slices"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/crossplane-contrib/provider-coder/apis"
	clusteraiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/ai/v1alpha1"
	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	namespacedaiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
)

// The fields. They name Secrets, and hold none.
//
//nolint:gosec // G101: index names, not credentials.
const (
	// ManagedProviderConfig maps a managed resource of any kind to the
	// providerconfig.Ref.IndexValue of the ProviderConfig it resolves to:
	// its dependents. Counting dependents from the resources themselves,
	// instead of from usage objects, means nothing has to be created inside
	// a terminating namespace and garbage collection cannot make the count
	// drop early.
	ManagedProviderConfig = "managed.providerConfig"
	// ManagedExternalName maps a managed resource of any kind to its
	// external name (the Coder id): who claims a Coder object.
	ManagedExternalName = "managed.externalName"
	// RecordExternalID maps a cleanup record to the Coder id it names.
	RecordExternalID = "cleanupRecord.externalID"
	// RecordManagedUID maps a cleanup record to the UID of its managed
	// resource, by its label: the records a poll reads, found without a
	// scan of every record.
	RecordManagedUID = "cleanupRecord.managedUID"
	// ProviderConfigSecrets maps a ProviderConfig of any kind to the
	// "namespace/name" of every Secret it reads.
	ProviderConfigSecrets = "providerConfig.secrets"
	// AIProviderSecrets maps an AIProvider of either scope to the
	// "namespace/name" of every Secret it reads, so a Secret change finds
	// its readers without a full list.
	AIProviderSecrets = "aiProvider.secrets"
	// MCPServerSecrets maps an MCPServer of either scope to the
	// "namespace/name" of every Secret it reads.
	MCPServerSecrets = "mcpServer.secrets"
)

// An Index is one field index of one kind.
type Index struct {
	Object  client.Object
	Field   string
	Extract client.IndexerFunc
}

// All are every field index of the provider.
func All() []Index {
	out := []Index{
		{Object: &clusterv1alpha1.CleanupRecord{}, Field: RecordExternalID, Extract: recordExternalID},
		{Object: &clusterv1alpha1.CleanupRecord{}, Field: RecordManagedUID, Extract: recordManagedUID},
	}
	for _, k := range apis.ManagedKinds() {
		out = append(out,
			Index{Object: k.New(), Field: ManagedProviderConfig, Extract: managedProviderConfig},
			Index{Object: k.New(), Field: ManagedExternalName, Extract: managedExternalName},
		)
	}
	for _, gk := range providerconfig.Kinds() {
		pc, _ := providerconfig.New(gk)
		out = append(out, Index{Object: pc, Field: ProviderConfigSecrets, Extract: providerConfigSecrets})
	}
	for _, o := range []client.Object{&namespacedaiv1alpha1.AIProvider{}, &clusteraiv1alpha1.AIProvider{}} {
		out = append(out, Index{Object: o, Field: AIProviderSecrets, Extract: aiProviderSecrets})
	}
	for _, o := range []client.Object{&namespacedaiv1alpha1.MCPServer{}, &clusteraiv1alpha1.MCPServer{}} {
		out = append(out, Index{Object: o, Field: MCPServerSecrets, Extract: mcpServerSecrets})
	}
	return out
}

// Of are the indexes of all whose object is of o's type.
func Of(all []Index, o client.Object) []Index {
	var out []Index
	for _, i := range all {
		if reflect.TypeOf(i.Object) == reflect.TypeOf(o) {
			out = append(out, i)
		}
	}
	return out
}

// Register registers the indexes is with the manager's cache. A kind's
// indexes go in before anything reads the kind through the cache: an
// informer started without them answers no query by them. Under
// Crossplane's SafeStart that is when the kind's CRD is served
// (internal/activation), since the cache cannot watch a kind the API
// server does not serve.
func Register(ctx context.Context, indexer client.FieldIndexer, is []Index) error {
	for _, i := range is {
		if err := indexer.IndexField(ctx, i.Object, i.Field, i.Extract); err != nil {
			return errors.Wrapf(err, "cannot index %T by %s", i.Object, i.Field)
		}
	}
	return nil
}

func managedProviderConfig(o client.Object) []string {
	mg, ok := o.(resource.Managed)
	if !ok {
		return nil
	}
	ref, err := providerconfig.RefOf(mg)
	if err != nil {
		return nil
	}
	return []string{ref.IndexValue()}
}

func managedExternalName(o client.Object) []string {
	if n := meta.GetExternalName(o); n != "" {
		return []string{n}
	}
	return nil
}

func recordExternalID(o client.Object) []string {
	rec, ok := o.(*clusterv1alpha1.CleanupRecord)
	if !ok || rec.Status.ExternalID == "" {
		return nil
	}
	return []string{rec.Status.ExternalID}
}

func recordManagedUID(o client.Object) []string {
	if uid := o.GetLabels()[clusterv1alpha1.ManagedResourceUIDLabel]; uid != "" {
		return []string{uid}
	}
	return nil
}

func providerConfigSecrets(o client.Object) []string {
	pc, ok := o.(providerconfig.Object)
	if !ok {
		return nil
	}
	var out []string
	for _, s := range providerconfig.ConnectionOf(pc).Secrets() {
		out = append(out, s.NamespacedName().String())
	}
	return out
}

func aiProviderSecrets(o client.Object) []string {
	r, ok := o.(interface {
		ProviderSecretRefs() common.AIProviderSecretRefs
	})
	if !ok {
		return nil
	}
	return secretValues(r.ProviderSecretRefs())
}

func mcpServerSecrets(o client.Object) []string {
	r, ok := o.(interface {
		MCPServerSecretRefs() common.MCPServerSecretRefs
	})
	if !ok {
		return nil
	}
	refs := r.MCPServerSecretRefs()
	var all common.AIProviderSecretRefs
	for _, ref := range []*common.SecretKeySelector{refs.OAuth2ClientSecret, refs.APIKeyValue} {
		if ref != nil {
			all.APIKeys = append(all.APIKeys, *ref)
		}
	}
	for _, h := range refs.CustomHeaders {
		all.APIKeys = append(all.APIKeys, h.Value)
	}
	return secretValues(all)
}

// secretValues are the "namespace/name" of every Secret refs name, once
// each: the AIProviderSecrets values of an AIProvider.
func secretValues(refs common.AIProviderSecretRefs) []string {
	all := slices.Clone(refs.APIKeys)
	for _, r := range []*common.SecretKeySelector{refs.AccessKeyID, refs.SecretAccessKey} {
		if r != nil {
			all = append(all, *r)
		}
	}
	out := make([]string, 0, len(all))
	for _, r := range all {
		v := r.Namespace + "/" + r.Name
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}
