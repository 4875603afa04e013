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

package fakecoder

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"github.com/coder/coder/v2/codersdk"

	"k8s.io/apimachinery/pkg/util/wait"
)

func TestAnInjectedStatusFailsTheEndpointUntilCleared(t *testing.T) {
	t.Parallel()
	tests := []struct {
		fault       Fault
		wantMessage string
	}{
		{Fault{Status: http.StatusInternalServerError}, "fakecoder: injected 500 Internal Server Error."},
		{Fault{Status: http.StatusBadGateway}, "fakecoder: injected 502 Bad Gateway."},
		{Fault{Status: http.StatusForbidden, Message: "nope"}, "nope"},
	}
	for _, tt := range tests {
		t.Run(http.StatusText(tt.fault.Status), func(t *testing.T) {
			t.Parallel()
			s, c := start(t, Options{})
			if err := s.SetFault(EndpointProvidersList, tt.fault); err != nil {
				t.Fatal(err)
			}
			_, err := c.AIProviders(testContext(t))
			wantAPIError(t, err, tt.fault.Status, codersdk.Response{Message: tt.wantMessage})

			s.ClearFaults()
			if _, err := c.AIProviders(testContext(t)); err != nil {
				t.Errorf("after ClearFaults: %v", err)
			}
		})
	}
}

func TestAFaultWithTimesEndsAfterThatManyRequests(t *testing.T) {
	t.Parallel()
	s, c := start(t, Options{})
	ctx := testContext(t)
	if err := s.SetFault(EndpointKeysList, Fault{Status: http.StatusServiceUnavailable, Times: 2}); err != nil {
		t.Fatal(err)
	}
	var statuses []int
	for range 3 {
		_, err := c.ListAIGatewayKeys(ctx)
		status := http.StatusOK
		if err != nil {
			status = apiError(t, err).StatusCode()
		}
		statuses = append(statuses, status)
	}
	if diff := cmp.Diff([]int{503, 503, 200}, statuses); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	if len(s.Faults()) != 0 {
		t.Errorf("exhausted fault still set: %v", s.Faults())
	}
}

func TestAFaultWithAnErrorRateFailsSomeRequestsNotAll(t *testing.T) {
	t.Parallel()
	s, c := start(t, Options{})
	ctx := testContext(t)
	if err := s.SetFault(EndpointBuildInfo, Fault{Status: http.StatusInternalServerError, ErrorRate: 0.5}); err != nil {
		t.Fatal(err)
	}
	failed := 0
	for range 100 {
		if _, err := c.BuildInfo(ctx); err != nil {
			failed++
		}
	}
	// Chance of a false failure is about 2^-100 per bound.
	if failed == 0 || failed == 100 {
		t.Errorf("%d of 100 failed, want some but not all", failed)
	}
}

func TestAFaultsLatencyDelaysTheAnswer(t *testing.T) {
	t.Parallel()
	s, c := start(t, Options{})
	if err := s.SetFault(EndpointUserMe, Fault{Latency: 150 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	begin := time.Now()
	if _, err := c.User(testContext(t), codersdk.Me); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(begin); took < 150*time.Millisecond {
		t.Errorf("request took %v, want at least the latency", took)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := c.User(ctx, codersdk.Me); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want a client timeout", err)
	}
}

func TestADripFaultSendsTheHeadersAtOnceAndTheBodyOverItsDuration(t *testing.T) {
	t.Parallel()
	const drip = 600 * time.Millisecond
	s, c := start(t, Options{})
	ctx := testContext(t)
	if _, err := c.CreateAIGatewayKey(ctx, codersdk.CreateAIGatewayKeyRequest{Name: "dripped"}); err != nil {
		t.Fatal(err)
	}
	want, err := c.ListAIGatewayKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetFault(EndpointKeysList, Fault{Drip: drip}); err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL()+"/api/v2/ai-gateway/keys", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(codersdk.SessionTokenHeader, s.Token())
	begin := time.Now()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	headers := time.Since(begin)
	var got []codersdk.AIGatewayKey
	if err := json.NewDecoder(res.Body).Decode(&got); err != nil {
		t.Fatalf("the dripped body: %v", err)
	}
	body := time.Since(begin)
	if res.StatusCode != http.StatusOK || headers > drip/3 || body < drip {
		t.Errorf("a dripped list: %d, headers after %s, body after %s; want 200 with the headers at once and the body after %s", res.StatusCode, headers, body, drip)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the dripped body is another list (-want +got):\n%s", diff)
	}
	if err := s.SetFault(EndpointKeysList, Fault{Drip: time.Second, CommitThenTimeout: true}); err == nil {
		t.Errorf("a drip of an answer that never comes was accepted")
	}
}

func TestCommitThenTimeoutKeepsTheCreateButNeverAnswers(t *testing.T) {
	t.Parallel()
	s, c := start(t, Options{})
	if err := s.SetFault(EndpointKeysCreate, Fault{CommitThenTimeout: true}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetFault(EndpointProvidersCreate, Fault{CommitThenTimeout: true}); err != nil {
		t.Fatal(err)
	}

	shortContext := func() context.Context {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		t.Cleanup(cancel)
		return ctx
	}
	_, err := c.CreateAIGatewayKey(shortContext(), codersdk.CreateAIGatewayKeyRequest{Name: "gw"})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("key create err = %v, want a client timeout", err)
	}
	_, err = c.CreateAIProvider(shortContext(), openAIRequest("p", keyA))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("provider create err = %v, want a client timeout", err)
	}

	if keys := s.Keys(); len(keys) != 1 || keys[0].Name != "gw" {
		t.Errorf("keys = %+v, want the committed key", keys)
	}
	if rows := s.Providers(false); len(rows) != 1 || rows[0].PlaintextKeys()[0] != keyA {
		t.Errorf("providers = %+v, want the committed provider", rows)
	}
}

func TestCommitThenStatusKeepsTheDeleteButAnswersAnError(t *testing.T) {
	t.Parallel()
	s, c := start(t, Options{})
	if err := s.SetFault(EndpointProviderDelete, Fault{Status: http.StatusBadGateway, Commit: true}); err != nil {
		t.Fatal(err)
	}
	ctx := testContext(t)
	must[codersdk.AIProvider](t)(c.CreateAIProvider(ctx, openAIRequest("p")))
	if got := apiError(t, c.DeleteAIProvider(ctx, "p")).StatusCode(); got != http.StatusBadGateway {
		t.Errorf("status = %d, want 502", got)
	}
	if rows := s.Providers(true); !rows[0].Deleted {
		t.Error("delete was not committed")
	}
}

func TestSetFaultRejectsNonsense(t *testing.T) {
	t.Parallel()
	s := New(Options{})
	for name, call := range map[string]func() error{
		"unknown endpoint": func() error { return s.SetFault("GET /nope", Fault{Status: 500}) },
		"rate above one":   func() error { return s.SetFault(EndpointUserMe, Fault{Status: 500, ErrorRate: 2}) },
		"commit no status": func() error { return s.SetFault(EndpointUserMe, Fault{Commit: true}) },
		"hang and status":  func() error { return s.SetFault(EndpointUserMe, Fault{Status: 500, CommitThenTimeout: true}) },
	} {
		if call() == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestADownCoderRefusesConnectionsAndComesBackWithItsURLAndData(t *testing.T) {
	t.Parallel()
	s, c := start(t, Options{})
	ctx := testContext(t)
	url := s.URL()
	created := must[codersdk.CreateAIGatewayKeyResponse](t)(c.CreateAIGatewayKey(ctx, codersdk.CreateAIGatewayKeyRequest{Name: "gw"}))

	if err := s.SetDown(true); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListAIGatewayKeys(ctx); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("err = %v, want connection refused", err)
	}

	if err := s.SetDown(false); err != nil {
		t.Fatal(err)
	}
	if s.URL() != url {
		t.Errorf("URL changed from %s to %s", url, s.URL())
	}
	keys := must[[]codersdk.AIGatewayKey](t)(c.ListAIGatewayKeys(ctx))
	if len(keys) != 1 || keys[0].ID != created.ID {
		t.Errorf("keys after restart = %+v", keys)
	}
}

func TestDownReleasesHungRequests(t *testing.T) {
	t.Parallel()
	s, c := start(t, Options{})
	if err := s.SetFault(EndpointKeysCreate, Fault{CommitThenTimeout: true}); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() {
		_, err := c.CreateAIGatewayKey(context.Background(), codersdk.CreateAIGatewayKeyRequest{Name: "gw"})
		errc <- err
	}()
	if err := wait.PollUntilContextTimeout(t.Context(), time.Millisecond, 5*time.Second, true, func(context.Context) (bool, error) {
		return s.Requests(EndpointKeysCreate) > 0, nil
	}); err != nil {
		t.Fatal("the create never reached the fake")
	}
	if err := s.SetDown(true); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		if err == nil {
			t.Error("hung request succeeded")
		}
	case <-time.After(2 * time.Second):
		t.Fatal("hung request was not released by SetDown")
	}
}

func TestEveryRequestIsCountedEvenRefusedOrFaulted(t *testing.T) {
	t.Parallel()
	s, c := start(t, Options{})
	ctx := testContext(t)
	anon := client(t, s.URL())

	_, _ = c.AIProviders(ctx)
	_, _ = anon.AIProviders(ctx) // 401s count too
	_ = s.SetFault(EndpointProviderGet, Fault{Status: 500})
	_, _ = c.AIProvider(ctx, "missing") // so do injected faults
	_, _ = c.BuildInfo(ctx)

	want := map[string]int{EndpointProvidersList: 2, EndpointProviderGet: 1, EndpointBuildInfo: 1}
	for _, e := range Endpoints() {
		if got := s.Requests(e); got != want[e] {
			t.Errorf("Requests(%q) = %d, want %d", e, got, want[e])
		}
	}
	s.ResetCounts()
	if got := s.Requests(EndpointProvidersList); got != 0 {
		t.Errorf("after reset: %d", got)
	}
}

// answer is what a client sees of an HTTP answer, the Date aside.
type answer struct {
	Status      int
	ContentType string
	Body        string
}

// rawDelete sends DELETE path with the session token, as codersdk does.
func rawDelete(t *testing.T, s *Server, path string) answer {
	t.Helper()
	req, err := http.NewRequestWithContext(testContext(t), http.MethodDelete, s.URL()+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(codersdk.SessionTokenHeader, s.Token())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type"), Body: string(b)}
}

// A delete fault answers exactly as Coder answers a delete that happened
// (204) or one of an object it does not have (404), and keeps the object
// until the fault is cleared: what a test needs to check that absence is
// read, never taken from a delete's answer.
func TestADeleteFaultAnswersAsCoderDoesAndKeepsTheObject(t *testing.T) {
	t.Parallel()
	kinds := map[string]struct {
		endpoint string
		// create makes an object and returns its delete path.
		create func(t *testing.T, c *codersdk.Client, name string) string
		// listed reports whether the API still shows the object.
		listed func(t *testing.T, c *codersdk.Client, path string) bool
	}{
		"Key": {
			endpoint: EndpointKeysDelete,
			create: func(t *testing.T, c *codersdk.Client, name string) string {
				k := must[codersdk.CreateAIGatewayKeyResponse](t)(c.CreateAIGatewayKey(testContext(t), codersdk.CreateAIGatewayKeyRequest{Name: name}))
				return "/api/v2/ai-gateway/keys/" + k.ID.String()
			},
			listed: func(t *testing.T, c *codersdk.Client, path string) bool {
				for _, k := range must[[]codersdk.AIGatewayKey](t)(c.ListAIGatewayKeys(testContext(t))) {
					if strings.HasSuffix(path, "/"+k.ID.String()) {
						return true
					}
				}
				return false
			},
		},
		"Provider": {
			endpoint: EndpointProviderDelete,
			create: func(t *testing.T, c *codersdk.Client, name string) string {
				p := must[codersdk.AIProvider](t)(c.CreateAIProvider(testContext(t), openAIRequest(name)))
				return "/api/v2/ai/providers/" + p.ID.String()
			},
			listed: func(t *testing.T, c *codersdk.Client, path string) bool {
				_, err := c.AIProvider(testContext(t), path[strings.LastIndex(path, "/")+1:])
				if err != nil && apiError(t, err).StatusCode() != http.StatusNotFound {
					t.Fatal(err)
				}
				return err == nil
			},
		},
	}
	for kind, k := range kinds {
		for _, status := range []int{http.StatusNoContent, http.StatusNotFound} {
			t.Run(fmt.Sprintf("%s/%d", kind, status), func(t *testing.T) {
				t.Parallel()
				s, c := start(t, Options{})
				// Coder's own answer: a delete that happens, or one of an
				// object that is not there.
				path := k.create(t, c, "real")
				if status == http.StatusNotFound {
					path = path[:strings.LastIndex(path, "/")+1] + uuid.NewString()
				}
				want := rawDelete(t, s, path)
				if want.Status != status {
					t.Fatalf("Coder's answer without a fault = %+v, want %d", want, status)
				}

				kept := k.create(t, c, "kept")
				if err := s.SetFault(k.endpoint, Fault{Status: status}); err != nil {
					t.Fatal(err)
				}
				for range 2 {
					if diff := cmp.Diff(want, rawDelete(t, s, kept)); diff != "" {
						t.Errorf("faulted delete's answer differs from Coder's (-want +got):\n%s", diff)
					}
				}
				if !k.listed(t, c, kept) {
					t.Fatal("the faulted delete removed the object")
				}

				s.ClearFault(k.endpoint)
				if got := rawDelete(t, s, kept); got.Status != http.StatusNoContent {
					t.Errorf("delete after ClearFault = %+v, want 204", got)
				}
				if k.listed(t, c, kept) {
					t.Error("the delete after ClearFault kept the object")
				}
			})
		}
	}
}

func TestASuccessFaultFitsOnlyADeleteEndpoint(t *testing.T) {
	t.Parallel()
	s := New(Options{})
	for _, e := range Endpoints() {
		err := s.SetFault(e, Fault{Status: http.StatusNoContent})
		if isDelete := e == EndpointKeysDelete || e == EndpointProviderDelete; (err == nil) != isDelete {
			t.Errorf("SetFault(%q, 204) = %v, want accepted only on a delete endpoint", e, err)
		}
	}
	if err := s.SetFault(EndpointKeysList, Fault{Status: http.StatusOK}); err == nil {
		t.Error("a 200 with an error body on the key list was accepted")
	}
}

func TestAnswerOtherIDWritesTheObjectAndAnswersWithAnothersID(t *testing.T) {
	t.Parallel()
	s, c := start(t, Options{})
	ctx := context.Background()
	victimKey, err := c.CreateAIGatewayKey(ctx, codersdk.CreateAIGatewayKeyRequest{Name: "victim"})
	if err != nil {
		t.Fatal(err)
	}
	victimProvider, err := c.CreateAIProvider(ctx, codersdk.CreateAIProviderRequest{Type: codersdk.AIProviderTypeOpenAI, Name: "victim", Enabled: true, BaseURL: "https://api.openai.com/v1", APIKeys: []string{"sk-victim-not-a-secret"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []string{EndpointKeysCreate, EndpointProvidersCreate} {
		if err := s.SetFault(e, Fault{AnswerOtherID: true, Times: 1}); err != nil {
			t.Fatal(err)
		}
	}
	k, err := c.CreateAIGatewayKey(ctx, codersdk.CreateAIGatewayKeyRequest{Name: "mine"})
	if err != nil {
		t.Fatal(err)
	}
	if k.ID != victimKey.ID || k.Name != "mine" {
		t.Errorf("the key create answered id %s name %q, want the victim's id %s and the name asked for", k.ID, k.Name, victimKey.ID)
	}
	if !slices.ContainsFunc(s.Keys(), func(r KeyRow) bool { return r.Name == "mine" && r.ID != victimKey.ID }) {
		t.Error("the key asked for was not created under an id of its own")
	}
	p, err := c.CreateAIProvider(ctx, codersdk.CreateAIProviderRequest{Type: codersdk.AIProviderTypeOpenAI, Name: "mine", Enabled: true, BaseURL: "https://api.openai.com/v1", APIKeys: []string{"sk-mine-not-a-secret"}})
	if err != nil {
		t.Fatal(err)
	}
	if p.ID != victimProvider.ID || p.Name != "mine" {
		t.Errorf("the provider create answered id %s name %q, want the victim's id %s and the name asked for", p.ID, p.Name, victimProvider.ID)
	}
	for _, e := range Endpoints() {
		isCreate := e == EndpointKeysCreate || e == EndpointProvidersCreate || e == EndpointMCPServerCreate
		if err := s.SetFault(e, Fault{AnswerOtherID: true}); (err == nil) != isCreate {
			t.Errorf("SetFault(%q, answer-other-id) = %v, want accepted only on a create endpoint", e, err)
		}
	}
}
