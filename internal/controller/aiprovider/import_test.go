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

	"github.com/coder/coder/v2/codersdk"
	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/test"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/deletion"
	testfixture "github.com/crossplane-contrib/provider-coder/test/framework/fixture"
)

// rivalUID is another resource's, in another namespace.
const rivalUID = "0b1c2d3e-0000-4000-8000-00000000cafe"

// testCoderURL is Coder's URL as the tests' ProviderConfig names it.
const testCoderURL = "https://coder.example.com/"

// importer is an observe-only AIProvider of team-a whose external name is
// externalName: no type, no base URL, as an import writes it.
func importer(externalName string) *aiv1alpha1.AIProvider {
	p := &aiv1alpha1.AIProvider{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "imported", UID: testUID}}
	p.Spec.ManagementPolicies = xpv2.ManagementPolicies{xpv2.ManagementActionObserve}
	meta.SetExternalName(p, externalName)
	return p
}

// rivalRecord is a cleanup record of the rival resource team-b/openai that
// names the provider by id (when not empty) and by Coder name, with a create
// attempt whose answer was lost when attempted is set.
func rivalRecord(uid, id, coderName string, attempted bool) *clusterv1alpha1.CleanupRecord {
	r := &clusterv1alpha1.CleanupRecord{ObjectMeta: metav1.ObjectMeta{
		Name: deletion.Name(deletion.KindProvider, types.UID(uid)), Labels: map[string]string{deletion.ManagedResourceUIDLabel: uid},
	}}
	r.Spec.Kind = deletion.KindProvider
	r.Spec.ManagedResource = clusterv1alpha1.ManagedResourceReference{
		APIVersion: aiv1alpha1.SchemeGroupVersion.String(), Kind: aiv1alpha1.AIProviderKind, Namespace: "team-b", Name: "openai", UID: uid,
	}
	r.Status.Phase = clusterv1alpha1.CleanupPhaseActive
	r.Status.ExternalID, r.Status.CoderName = id, coderName
	if attempted {
		r.Status.CreateAttemptedAt = &metav1.Time{Time: time.Now().Add(-time.Minute)}
	}
	return r
}

// rivalResource is the live AIProvider team-b/openai, whose external name is
// id and which has no record.
func rivalResource(id string) *aiv1alpha1.AIProvider {
	p := &aiv1alpha1.AIProvider{ObjectMeta: metav1.ObjectMeta{Namespace: "team-b", Name: "openai", UID: rivalUID}}
	meta.SetExternalName(p, id)
	return p
}

// The external name of an import may be the provider's Coder name. The
// provider Coder finds by it is imported only when nothing else owns it,
// and the external name then settles to its id.
func TestImportByNameSettlesToTheIDOfAProviderNothingElseOwns(t *testing.T) {
	rival := deletion.Owner{UID: rivalUID, Kind: aiv1alpha1.AIProviderKind, Namespace: "team-b", Name: "openai"}
	type want struct {
		Exists bool
		// ExternalName and ObservedID are the id when "id".
		ExternalName string
		ObservedID   string
		// Updates are the writes of the resource to Kubernetes.
		Updates int
		Err     error
	}
	cases := map[string]struct {
		reason       string
		externalName string
		// others are in Kubernetes besides the resource; id is the
		// provider's.
		others func(id string) []client.Object
		want   func(id string) want
	}{
		"NameOfAProviderNobodyOwns": {
			reason:       "A provider made by hand is imported by its name; its id becomes the external name, written at once.",
			externalName: "openai",
			want:         func(string) want { return want{Exists: true, ExternalName: "id", ObservedID: "id", Updates: 1} },
		},
		"IDOfAProviderNobodyOwns": {
			reason:       "An import by id works as before, and writes nothing.",
			externalName: "id",
			want:         func(string) want { return want{Exists: true, ExternalName: "id", ObservedID: "id"} },
		},
		"OwnRecordNamesIt": {
			reason:       "The resource's own record of the id is no rival.",
			externalName: "openai",
			others: func(id string) []client.Object {
				return []client.Object{rivalRecord(testUID, id, "", false)}
			},
			want: func(string) want { return want{Exists: true, ExternalName: "id", ObservedID: "id", Updates: 1} },
		},
		"NameNotInCoder": {
			reason:       "No provider has the name: nothing exists, and the external name stays.",
			externalName: "anthropic",
			want:         func(string) want { return want{ExternalName: "anthropic"} },
		},
		"NeitherIDNorName": {
			reason:       "An external name Coder could not hold as a name is refused before any request.",
			externalName: "Open_AI",
			want:         func(string) want { return want{ExternalName: "Open_AI", Err: errors.New(errNotIDOrName)} },
		},
		"RecordOfAnotherResource": {
			reason:       "Another resource's record names the id: the name does not import it, and nothing of it is observed.",
			externalName: "openai",
			others:       func(id string) []client.Object { return []client.Object{rivalRecord(rivalUID, id, "openai", false)} },
			want: func(id string) want {
				return want{ExternalName: "openai", Err: deletion.ErrOwned(id, deletion.Owner{UID: rivalUID, Kind: rival.Kind, Namespace: rival.Namespace, Name: rival.Name, Record: true})}
			},
		},
		"ExternalNameOfAnotherResource": {
			reason:       "Another live resource names the id without a record (an import): it was first, and keeps it.",
			externalName: "openai",
			others:       func(id string) []client.Object { return []client.Object{rivalResource(id)} },
			want:         func(id string) want { return want{ExternalName: "openai", Err: deletion.ErrOwned(id, rival)} },
		},
		"LostCreateOfAnotherResource": {
			reason:       "Another resource's create of that name lost its answer: it may adopt the provider, so no import takes it meanwhile.",
			externalName: "openai",
			others:       func(string) []client.Object { return []client.Object{rivalRecord(rivalUID, "", "openai", true)} },
			want: func(string) want {
				return want{ExternalName: "openai", Err: errors.New(`the Coder provider named "openai" may be the result of a create of AIProvider team-b/openai (UID ` + rivalUID +
					`) whose answer was lost, which that resource may still adopt; this resource does not import, change or delete it: wait until that resource is Ready or deleted, or delete it first`)}
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			got := f.createProvider(t, "openai")
			id := got.ID.String()
			resolve := func(s string) string {
				if s == "id" {
					return id
				}
				return s
			}
			p := importer(resolve(tc.externalName))
			var objs []client.Object
			if tc.others != nil {
				objs = tc.others(id)
			}
			objs = append(objs, p)
			f = f.withKube(t, objs...)

			obs, err := f.ext.Observe(context.Background(), p)
			w := tc.want(id)
			w.ExternalName, w.ObservedID = resolve(w.ExternalName), resolve(w.ObservedID)
			gotWant := want{
				Exists: obs.ResourceExists, ExternalName: meta.GetExternalName(p), ObservedID: p.Status.AtProvider.ID,
				Updates: f.updates, Err: err,
			}
			if diff := cmp.Diff(w, gotWant, test.EquateErrors()); diff != "" {
				t.Errorf("%s\nObserve: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestPendingCreateOfNamesOnlyAnotherResourcesLostCreateOfThatName(t *testing.T) {
	attempted := rivalRecord(rivalUID, "", "openai", true)
	answered := rivalRecord(rivalUID, "", "openai", false)
	withID := rivalRecord(rivalUID, "4d2c1a8e-0000-4000-8000-000000000001", "openai", true)
	own := rivalRecord(testUID, "", "openai", true)
	key := rivalRecord(rivalUID, "", "openai", true)
	key.Spec.Kind = deletion.KindKey
	unwritten := rivalRecord(rivalUID, "", "openai", true)
	unwritten.Status.Phase = ""
	cases := map[string]struct {
		reason string
		recs   []clusterv1alpha1.CleanupRecord
		name   string
		want   bool
	}{
		"LostCreate":    {reason: "A create of the name whose answer was lost may have written it.", recs: []clusterv1alpha1.CleanupRecord{*attempted}, name: "openai", want: true},
		"OtherName":     {reason: "A lost create of another name did not write this one.", recs: []clusterv1alpha1.CleanupRecord{*attempted}, name: "anthropic"},
		"Answered":      {reason: "A create Coder answered wrote nothing (its attempt is cleared).", recs: []clusterv1alpha1.CleanupRecord{*answered}, name: "openai"},
		"KnowsItsID":    {reason: "A record with an id names that id only; the owner check goes by it.", recs: []clusterv1alpha1.CleanupRecord{*withID}, name: "openai"},
		"Own":           {reason: "The importer's own lost create is no rival.", recs: []clusterv1alpha1.CleanupRecord{*own}, name: "openai"},
		"KeyRecord":     {reason: "A key's record names a key, not a provider.", recs: []clusterv1alpha1.CleanupRecord{*key}, name: "openai"},
		"WithoutStatus": {reason: "A record the provider never wrote a status to names nothing.", recs: []clusterv1alpha1.CleanupRecord{*unwritten}, name: "openai"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, got := deletion.PendingCreateOf(deletion.KindProvider, testUID, tc.name, tc.recs, deletion.Origin{})
			if got != tc.want {
				t.Errorf("%s\nPendingCreateOf(%q) = %t, want %t", tc.reason, tc.name, got, tc.want)
			}
		})
	}
}

// withKube gives f's external client a fake Kubernetes API holding objs,
// with the manager's indexes, a record store that reads it, and Coder's URL.
func (f *fixture) withKube(t *testing.T, objs ...client.Object) *fixture {
	t.Helper()
	kube := testfixture.Kube(t, objs...).WithStatusSubresource(objs...).
		WithInterceptorFuncs(interceptor.Funcs{Update: func(ctx context.Context, c client.WithWatch, o client.Object, opts ...client.UpdateOption) error {
			f.updates++
			return c.Update(ctx, o, opts...)
		}}).Build()
	f.ext.kube, f.ext.reader = kube, kube
	f.ext.records = deletion.NewStore(kube, testfixture.Scheme(t), nil)
	f.ext.url = testCoderURL
	return f
}

// bedrockProvider creates a Bedrock provider that assumes a role, so Coder
// generates its external id.
func (f *fixture) bedrockProvider(t *testing.T, name string) codersdk.AIProvider {
	t.Helper()
	p, err := f.cl.CreateProvider(context.Background(), codersdk.CreateAIProviderRequest{
		Type: codersdk.AIProviderTypeBedrock, Name: name, Enabled: true, BaseURL: "https://bedrock-runtime.us-east-1.amazonaws.com",
		Settings: codersdk.AIProviderSettings{Bedrock: &codersdk.AIProviderBedrockSettings{
			Region: "us-east-1", RoleARN: "arn:aws:iam::123456789012:role/CoderBedrock",
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}
