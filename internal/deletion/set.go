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

package deletion

import (
	"context"
	"slices"

	"k8s.io/apimachinery/pkg/types"

	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
)

// A Set is the cleanup records of one managed resource, as the cache
// showed them: a record written a moment ago may be missing.
type Set struct {
	uid  types.UID
	recs []clusterv1alpha1.CleanupRecord
}

// written are the records of s the provider wrote a status to: one it
// never wrote names nothing.
func (s Set) written() []*clusterv1alpha1.CleanupRecord {
	var out []*clusterv1alpha1.CleanupRecord
	for i := range s.recs {
		if s.recs[i].Status.Phase != "" {
			out = append(out, &s.recs[i])
		}
	}
	return out
}

// Of returns the records of mg, in one list of the cache.
func (r *Store) Of(ctx context.Context, mg resource.Managed) (Set, error) {
	recs, err := r.of(ctx, mg)
	return Set{uid: mg.GetUID(), recs: recs}, err
}

// past returns the records of mg read past the cache, where a record
// written a moment ago cannot be missing.
func (r *Store) past(ctx context.Context, mg resource.Managed) (Set, error) {
	recs, err := list(ctx, r.reader, mg)
	return Set{uid: mg.GetUID(), recs: recs}, err
}

// same reports whether s and o hold the same records, each as written at
// the same version.
func (s Set) same(o Set) bool {
	v := make(map[string]string, len(s.recs))
	for i := range s.recs {
		v[s.recs[i].Name] = s.recs[i].ResourceVersion
	}
	return len(s.recs) == len(o.recs) && !slices.ContainsFunc(o.recs, func(r clusterv1alpha1.CleanupRecord) bool {
		rv, ok := v[r.Name]
		return !ok || rv != r.ResourceVersion
	})
}

// In returns the records of s that speak of the Coder at now (Speaks):
// an id a record of another Coder holds names another object, whatever
// that Coder's server answered.
func (s Set) In(now Origin) Set {
	recs := slices.DeleteFunc(slices.Clone(s.recs), func(rec clusterv1alpha1.CleanupRecord) bool { return !SpeaksOf(&rec, now) })
	return Set{uid: s.uid, recs: recs}
}

// Rotations returns the rotation counters of the set's records of kind.
func (s Set) Rotations(kind string) []int {
	out := make([]int, 0, len(s.recs))
	for i := range s.recs {
		if n, ok := RotationOf(kind, s.uid, s.recs[i].Name); ok {
			out = append(out, n)
		}
	}
	return out
}

// Origins returns where the set's records say their objects were made,
// each once, in record order.
func (s Set) Origins() []Origin {
	var out []Origin
	for i := range s.recs {
		if o := originOf(&s.recs[i]); o.DeploymentID != "" && !slices.Contains(out, o) {
			out = append(out, o)
		}
	}
	return out
}

// LacksID reports whether the set is one create's record of kind, written
// with the status the sweep acts on, that holds no id, and no record holds
// id: the id of the object its resource adopted is missing from it.
func (s Set) LacksID(kind, id string) bool {
	if len(s.recs) != 1 || slices.Contains(s.ExternalIDs(), id) {
		return false
	}
	r := &s.recs[0]
	return r.Name == Name(kind, s.uid) && r.Status.Phase != "" && r.Status.ExternalID == ""
}

// ExternalIDs returns the Coder ids the set's records hold. They prove
// which objects the resource owns when nothing else does: an imported key
// keeps the id it was adopted under after a rotation moves the external
// name to the new key.
func (s Set) ExternalIDs() []string {
	out := make([]string, 0, len(s.recs))
	for i := range s.recs {
		if id := s.recs[i].Status.ExternalID; id != "" {
			out = append(out, id)
		}
	}
	return out
}
