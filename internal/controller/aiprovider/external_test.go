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
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/coder/coder/v2/codersdk"
	"github.com/google/uuid"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
	"github.com/crossplane-contrib/provider-coder/internal/deletion"
	testfixture "github.com/crossplane-contrib/provider-coder/test/framework/fixture"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

const testUID = "0b1c2d3e-0000-4000-8000-00000000beef"

// testKey is the provider's fingerprint key in the tests.
var testKey = []byte("fingerprint-key-of-the-tests-0123456789")

// staticKey is a KeySource of one key.
type staticKey []byte

func (k staticKey) Key(context.Context) ([]byte, error) { return k, nil }

// fixture is an external client of a fake Coder and a fake Kubernetes API
// holding objs; updates counts the client's writes to Kubernetes.
type fixture struct {
	srv     *fakecoder.Server
	cl      *coder.Client
	ext     *external
	updates int
}

func newFixture(t *testing.T, objs ...client.Object) *fixture {
	t.Helper()
	srv, cl := testfixture.Coder(t)
	f := &fixture{srv: srv, cl: cl}
	kube := testfixture.Kube(t, objs...).WithStatusSubresource(objs...).
		WithInterceptorFuncs(interceptor.Funcs{Update: func(ctx context.Context, c client.WithWatch, o client.Object, opts ...client.UpdateOption) error {
			f.updates++
			return c.Update(ctx, o, opts...)
		}}).Build()
	f.ext = &external{coder: cl, kube: kube, reader: kube, kind: "AIProvider", log: logging.NewNopLogger(), record: event.NewNopRecorder(), fingerprintKey: staticKey(testKey)}
	return f
}

func (f *fixture) createProvider(t *testing.T, name string) codersdk.AIProvider {
	t.Helper()
	p, err := f.cl.CreateProvider(context.Background(), codersdk.CreateAIProviderRequest{
		Type: codersdk.AIProviderTypeOpenAI, Name: name, Enabled: true, BaseURL: "https://api.openai.com/v1", APIKeys: []string{"sk-test-not-a-secret"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func (f *fixture) live(name string) bool {
	for _, p := range f.srv.Providers(false) {
		if p.Name == name {
			return true
		}
	}
	return false
}

// deletingProvider is an AIProvider being deleted, with external name id
// (none when empty) and the given annotations.
func deletingProvider(id string, annotations map[string]string) *aiv1alpha1.AIProvider {
	now := metav1.Now()
	p := &aiv1alpha1.AIProvider{ObjectMeta: metav1.ObjectMeta{
		Namespace: "team-a", Name: "openai", UID: testUID, DeletionTimestamp: &now, Annotations: annotations,
	}}
	p.Spec.ForProvider.Type = "openai"
	if id != "" {
		meta.SetExternalName(p, id)
	}
	return p
}

func TestDeleteOfAProviderAlreadyGoneInCoderSucceeds(t *testing.T) {
	// The reconciler deletes on an observation that may be a moment old:
	// Coder's NotFound for a provider removed since is success.
	ctx := context.Background()
	f := newFixture(t)
	got := f.createProvider(t, "openai")
	if err := f.cl.DeleteProvider(ctx, got.ID.String()); err != nil {
		t.Fatal(err)
	}
	if _, err := f.ext.Delete(ctx, deletingProvider(got.ID.String(), nil)); err != nil {
		t.Errorf("Delete of a provider already gone: %v, want success", err)
	}
}

func TestDeleteRemovesOnlyTheProviderOfTheExternalName(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	got := f.createProvider(t, "openai")
	f.createProvider(t, "someone-elses")
	if _, err := f.ext.Delete(ctx, deletingProvider(got.ID.String(), nil)); err != nil {
		t.Fatal(err)
	}
	if f.live("openai") {
		t.Error("the provider is still in Coder after Delete")
	}
	if !f.live("someone-elses") {
		t.Error("Delete removed a provider it does not name")
	}
}

func TestDeleteWithoutAProviderIDFailsInsteadOfGuessing(t *testing.T) {
	// A name is no proof of ownership: Delete names a provider by its id
	// only, and fails rather than let the finalizer go unverified.
	f := newFixture(t)
	f.createProvider(t, "openai")
	if _, err := f.ext.Delete(context.Background(), deletingProvider("openai", nil)); err == nil {
		t.Error("Delete with external name \"openai\" succeeded, want an error")
	}
	if !f.live("openai") {
		t.Error("Delete with an external name that is no id deleted the provider of that name")
	}
}

// An Observe of a deleting AIProvider decides whether anything of it is
// left in Coder; only "absent" lets the finalizer go.
func TestObserveOfADeletingProviderFindsWhatItOwnsAndNothingElse(t *testing.T) {
	attempt := time.Now().Add(-time.Hour).UTC().Truncate(time.Second)
	pending := map[string]string{meta.AnnotationKeyExternalCreatePending: attempt.Format(time.RFC3339)}
	// record is the cleanup record of the create attempted at t.
	record := func(at time.Time) *clusterv1alpha1.CleanupRecord {
		r := &clusterv1alpha1.CleanupRecord{ObjectMeta: metav1.ObjectMeta{
			Name:   deletion.Name("AIProvider", testUID),
			Labels: map[string]string{deletion.ManagedResourceUIDLabel: testUID},
		}}
		r.Spec.ManagedResource.UID = testUID
		r.Status.CreateAttemptedAt = &metav1.Time{Time: at}
		return r
	}
	cases := map[string]struct {
		reason string
		// objs are in Kubernetes before the fixture starts.
		objs []client.Object
		// setup makes what is in Coder and returns the resource.
		setup      func(t *testing.T, f *fixture) *aiv1alpha1.AIProvider
		wantExists bool
		// wantExternalName: Observe named the provider for Delete.
		wantExternalName bool
	}{
		"ProviderOfTheExternalName": {
			reason: "The provider of the external name exists: Delete must run.",
			setup: func(t *testing.T, f *fixture) *aiv1alpha1.AIProvider {
				return deletingProvider(f.createProvider(t, "openai").ID.String(), nil)
			},
			wantExists: true, wantExternalName: true,
		},
		"ProviderGoneInCoder": {
			reason: "A provider deleted in Coder already is absent.",
			setup: func(t *testing.T, f *fixture) *aiv1alpha1.AIProvider {
				got := f.createProvider(t, "openai")
				if err := f.cl.DeleteProvider(context.Background(), got.ID.String()); err != nil {
					t.Fatal(err)
				}
				return deletingProvider(got.ID.String(), nil)
			},
			wantExternalName: true,
		},
		"NoCreateAttempted": {
			reason: "Without an external name or a pending create, a provider of the same name is somebody else's.",
			setup: func(t *testing.T, f *fixture) *aiv1alpha1.AIProvider {
				f.createProvider(t, "openai")
				return deletingProvider("", nil)
			},
		},
		"SameNameCreatedByOthers": {
			reason: "A provider of the name made long before the recorded attempt is not the attempt's: it is not claimed, and not deleted.",
			objs:   []client.Object{record(attempt)},
			setup: func(t *testing.T, f *fixture) *aiv1alpha1.AIProvider {
				f.createProvider(t, "openai")
				return deletingProvider("", pending)
			},
		},
		"UncertainCreateThatWroteIt": {
			reason: "A provider the recorded attempt created (its answer was lost) is the resource's: it is named for Delete.",
			objs:   []client.Object{record(time.Now())},
			setup: func(t *testing.T, f *fixture) *aiv1alpha1.AIProvider {
				f.createProvider(t, "openai")
				return deletingProvider("", map[string]string{meta.AnnotationKeyExternalCreatePending: time.Now().UTC().Format(time.RFC3339)})
			},
			wantExists: true, wantExternalName: true,
		},
		"UncertainCreateCoderTwoMinutesBehind": {
			reason: "Coder's clock runs two minutes behind ours: it dates the provider our attempt wrote two minutes before the attempt by our clock, and it is still ours.",
			objs:   []client.Object{record(time.Now())},
			setup: func(t *testing.T, f *fixture) *aiv1alpha1.AIProvider {
				f.srv.SetClockOffset(-2 * time.Minute)
				f.createProvider(t, "openai")
				return deletingProvider("", map[string]string{meta.AnnotationKeyExternalCreatePending: time.Now().UTC().Format(time.RFC3339)})
			},
			wantExists: true, wantExternalName: true,
		},
		"UncertainCreateCoderTwoMinutesAhead": {
			reason: "Coder's clock runs two minutes ahead: its date is past the attempt's timeout by our clock, and the provider is still ours.",
			objs:   []client.Object{record(time.Now())},
			setup: func(t *testing.T, f *fixture) *aiv1alpha1.AIProvider {
				f.srv.SetClockOffset(2 * time.Minute)
				f.createProvider(t, "openai")
				return deletingProvider("", map[string]string{meta.AnnotationKeyExternalCreatePending: time.Now().UTC().Format(time.RFC3339)})
			},
			wantExists: true, wantExternalName: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, tc.objs...)
			p := tc.setup(t, f)
			obs, err := f.ext.Observe(context.Background(), p)
			if err != nil {
				t.Fatalf("%s\nObserve: %v", tc.reason, err)
			}
			if obs.ResourceExists != tc.wantExists {
				t.Errorf("%s\nObserve says exists = %v, want %v", tc.reason, obs.ResourceExists, tc.wantExists)
			}
			if obs.ResourceExists && !obs.ResourceUpToDate {
				t.Errorf("%s\na deleting provider is reported out of date: the reconciler would update it instead of deleting", tc.reason)
			}
			if got := meta.GetExternalName(p) != ""; got != tc.wantExternalName {
				t.Errorf("%s\nexternal name set = %v (%q), want %v", tc.reason, got, meta.GetExternalName(p), tc.wantExternalName)
			}
			if f.updates != 0 {
				t.Errorf("%s\nObserve of a deleting resource wrote it %d times, want none", tc.reason, f.updates)
			}
		})
	}
}

func TestACreateAnswerCountsOnlyAsTheProviderAskedFor(t *testing.T) {
	asked := codersdk.AIProvider{ID: uuid.New(), Name: "team-openai"}
	other := codersdk.AIProvider{ID: uuid.New(), Name: "someone-elses"}
	cases := map[string]struct {
		reason string
		// answer is the create's answer; read what a read of its id shows
		// (nil: not found).
		answer codersdk.AIProvider
		read   *codersdk.AIProvider
		want   bool
	}{
		"Confirmed":     {reason: "The answer has the name sent, and a read of its id shows it.", answer: asked, read: &asked, want: true},
		"AnotherName":   {reason: "An answer naming another provider is not ours, whatever id it carries.", answer: other, read: &other},
		"ReadDisagrees": {reason: "A read of the answered id showing another provider: the id is someone else's.", answer: asked, read: &other},
		"ReadNotFound":  {reason: "A read that does not find the answered id: nothing confirms it.", answer: asked},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				if tc.read == nil {
					w.WriteHeader(http.StatusNotFound)
					_ = json.NewEncoder(w).Encode(codersdk.Response{Message: "Resource not found."})
					return
				}
				_ = json.NewEncoder(w).Encode(tc.read)
			}))
			defer srv.Close()
			cl, err := coder.New(coder.Config{URL: srv.URL, Token: "t", Timeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			err = (&external{coder: cl}).confirm(context.Background(), "team-openai", tc.answer)
			if (err == nil) != tc.want {
				t.Fatalf("%s\nconfirm() = %v, want confirmed: %t", tc.reason, err, tc.want)
			}
			if err != nil && !coder.Timeout(err) {
				t.Errorf("%s\nconfirm() = %v: an unconfirmed create must count as one whose outcome is unknown", tc.reason, err)
			}
		})
	}
}
