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
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"

	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
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
