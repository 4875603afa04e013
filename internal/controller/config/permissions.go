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

package config

import (
	"context"
	"strings"
	"sync"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
)

// A Permission is API access the provider needs beyond the ClusterRole
// Crossplane v2 grants every provider (its own CRDs without delete;
// Secrets, ConfigMaps, Events, Leases). Crossplane v2 reads no permission
// requests from a package, so the operator binds these with
// examples/install/rbac.yaml.
type Permission struct {
	Group, Resource, Verb string
}

func (p Permission) String() string {
	if p.Group == "" {
		return p.Verb + " " + p.Resource
	}
	return p.Verb + " " + p.Resource + "." + p.Group
}

// Needed is what examples/install/rbac.yaml grants.
var Needed = []Permission{
	// Delete a cleanup record once its Coder object is verified gone.
	{Group: "coder.crossplane.io", Resource: "cleanuprecords", Verb: "delete"},
	// Whether a ProviderConfig's namespace, or its Secret's, is being
	// deleted.
	{Group: "", Resource: "namespaces", Verb: "list"},
	{Group: "", Resource: "namespaces", Verb: "watch"},
}

// MissingPermissionsMessage says what the provider lacks and how to grant it.
func MissingPermissionsMessage(missing []Permission) string {
	s := make([]string, len(missing))
	for i, p := range missing {
		s[i] = p.String()
	}
	return "the provider's ServiceAccount cannot " + strings.Join(s, ", ") +
		": apply examples/install/rbac.yaml (Crossplane v2 grants a provider only its own CRDs, without delete, and Secrets, ConfigMaps, Events and Leases)." +
		" Without them cleanup records stay behind and a namespace deletion is not recognised"
}

// MissingPermissions asks the API server, with SelfSubjectAccessReviews,
// which of ps the provider's own identity lacks.
func MissingPermissions(ctx context.Context, kube client.Client, ps []Permission) ([]Permission, error) {
	var missing []Permission
	for _, p := range ps {
		r := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
			ResourceAttributes: &authorizationv1.ResourceAttributes{Group: p.Group, Resource: p.Resource, Verb: p.Verb},
		}}
		if err := kube.Create(ctx, r); err != nil {
			return nil, errors.Wrapf(err, "cannot review permission to %s", p)
		}
		if !r.Status.Allowed {
			missing = append(missing, p)
		}
	}
	return missing, nil
}

// permissions remembers the last review for ttl, so a burst of
// ProviderConfig reconciles does not become a burst of reviews; a binding
// applied later is seen within ttl.
type permissions struct {
	kube client.Client
	ttl  time.Duration

	mu      sync.Mutex
	at      time.Time
	missing []Permission
}

// Missing returns the Needed permissions the provider lacks. A review that
// fails is not a denial: it returns nothing missing, and is tried again on
// the next call.
func (p *permissions) Missing(ctx context.Context, now time.Time) []Permission {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.at.IsZero() && now.Sub(p.at) < p.ttl {
		return p.missing
	}
	m, err := MissingPermissions(ctx, p.kube, Needed)
	if err != nil {
		return nil
	}
	p.at, p.missing = now, m
	return m
}
