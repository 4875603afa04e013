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
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/deletion"
)

// ownRecord is the tests' resource's record of a create attempted at
// attempt (none when zero), whose answer was lost.
func ownRecord(attempt time.Time) *clusterv1alpha1.CleanupRecord {
	r := &clusterv1alpha1.CleanupRecord{ObjectMeta: metav1.ObjectMeta{
		Name: deletion.Name(deletion.KindProvider, testUID), Labels: map[string]string{deletion.ManagedResourceUIDLabel: testUID},
	}}
	r.Spec.Kind = deletion.KindProvider
	r.Spec.ManagedResource = clusterv1alpha1.ManagedResourceReference{
		APIVersion: aiv1alpha1.SchemeGroupVersion.String(), Kind: aiv1alpha1.AIProviderKind, Namespace: "team-a", Name: "openai", UID: testUID,
	}
	r.Status.Phase = clusterv1alpha1.CleanupPhaseActive
	r.Status.CoderName = "openai"
	if !attempt.IsZero() {
		r.Status.CreateAttemptedAt = &metav1.Time{Time: attempt}
	}
	return r
}

// A create commits and its answer is lost; a later create is refused
// before it is sent (the ProviderConfig reached another Coder for a
// while), which the annotations remember as the last attempt. The record
// still holds the lost one, and only the record proves an attempt: the
// provider it wrote is adopted, not given up to a create that meets
// Coder's 409 and clears the record (soak seed 777365623978).
func TestALostCreateIsAdoptedThoughALaterCreateWasRefusedUnsent(t *testing.T) {
	cases := map[string]struct {
		reason  string
		attempt bool
		want    bool
	}{
		"RecordedLostCreate": {
			reason:  "The record holds the lost create's attempt: the provider it wrote is this resource's.",
			attempt: true, want: true,
		},
		"NoRecordedAttempt": {
			reason: "No attempt on the record: nothing of this resource's is looked for, whatever the annotations say.",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var attempt time.Time
			if tc.attempt {
				attempt = time.Now().Add(-time.Second)
			}
			p := liveProvider("")
			f := newFixture(t, p, keySecret(apiKey), ownRecord(attempt))
			made := f.createProvider(t, "openai")
			p = f.stored(t)
			// The last attempt, refused unsent, as the reconciler and
			// Create leave the annotations.
			later := time.Now().Add(time.Minute).UTC().Format(time.RFC3339)
			meta.AddAnnotations(p, map[string]string{meta.AnnotationKeyExternalCreatePending: later, "coder.crossplane.io/refused-create": later})

			o, err := f.ext.Observe(context.Background(), p)
			if !tc.want {
				if err != nil || o.ResourceExists || meta.GetExternalName(p) != "" {
					t.Errorf("%s\nObserve = %+v, %v, external name %q; want not existing, nothing adopted", tc.reason, o, err, meta.GetExternalName(p))
				}
				return
			}
			if err != nil || !o.ResourceExists {
				t.Fatalf("%s\nObserve = %+v, %v; want the provider adopted", tc.reason, o, err)
			}
			if got := meta.GetExternalName(f.stored(t)); got != made.ID.String() {
				t.Errorf("%s\nstored external name = %q, want %s", tc.reason, got, made.ID)
			}
		})
	}
}
