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
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"time"

	"github.com/coder/coder/v2/codersdk"
	"github.com/google/uuid"
)

// Fault describes how one endpoint misbehaves. Latency applies to every
// request; the other effects apply when the fault "fires".
type Fault struct {
	// Latency delays the request before anything else happens.
	Latency time.Duration
	// Drip sends the answer's status and headers at once and its body
	// over Drip, a few bytes at a time: a server that answers within the
	// client's timeout but keeps the response open that long. Like
	// Latency it applies to every request.
	Drip time.Duration
	// Status, when non-zero, answers with this status and a codersdk.Response
	// body instead of running the endpoint. On a delete endpoint (the only
	// ones a 2xx may fault) it answers as Coder answers a delete but keeps
	// the object: 204, with no body, as for a delete that happened; 404,
	// with Coder's ResourceNotFound body, as for an object already gone. A
	// replica that lost the write, or a proxy in front of Coder, answers
	// so; only a read that no longer finds the object proves it gone.
	Status int
	// Message overrides the body's message for Status.
	Message string
	// Commit runs the endpoint (so a write happens) before answering
	// Status, like a server that fails after committing. Needs Status.
	Commit bool
	// CommitThenTimeout runs the endpoint, throws its answer away and never
	// answers: the request hangs until the client gives up or the server
	// goes down. The classic "did my create happen?" failure.
	CommitThenTimeout bool
	// AnswerOtherID, on a create endpoint, runs the create and answers as
	// Coder does, but with the id of another object of the kind (the
	// oldest live one; a new random id when there is none) in place of the
	// created one's: a server that answers with someone else's ids. The
	// created object is there, under the name asked for.
	AnswerOtherID bool
	// ErrorRate is the probability (0..1) that Status or CommitThenTimeout
	// fires on a request; 0 means always.
	ErrorRate float64
	// Times limits the fault to the next Times requests to the endpoint,
	// after which it is removed; 0 means until cleared.
	Times int
}

func (f Fault) validate() error {
	var errs []error
	if f.Latency < 0 || f.Drip < 0 || f.Times < 0 {
		errs = append(errs, errors.New("latency, drip and times must not be negative"))
	}
	if f.Drip > 0 && f.CommitThenTimeout {
		errs = append(errs, errors.New("commit-then-timeout never answers, so it has no body to drip"))
	}
	if f.ErrorRate < 0 || f.ErrorRate > 1 {
		errs = append(errs, errors.New("error rate must be within 0..1"))
	}
	if f.Status != 0 && (f.Status < 100 || f.Status > 599) {
		errs = append(errs, fmt.Errorf("invalid status %d", f.Status))
	}
	if f.Commit && f.Status == 0 {
		errs = append(errs, errors.New("commit needs a status"))
	}
	if f.CommitThenTimeout && f.Status != 0 {
		errs = append(errs, errors.New("commit-then-timeout never answers, so it takes no status"))
	}
	if f.AnswerOtherID && (f.Status != 0 || f.Commit || f.CommitThenTimeout) {
		errs = append(errs, errors.New("answer-other-id answers the create's own success, so it takes no status and no other commit"))
	}
	return errors.Join(errs...)
}

// SetFault makes endpoint (one of the Endpoint constants) misbehave as f,
// replacing any previous fault on it.
func (s *Server) SetFault(endpoint string, f Fault) error {
	if !slices.Contains(Endpoints(), endpoint) {
		return fmt.Errorf("fakecoder: unknown endpoint %q", endpoint)
	}
	if f.Status >= 200 && f.Status < 300 && !slices.Contains(deleteEndpoints, endpoint) {
		// Coder's other successes carry the object; an injected one would
		// carry an error body no real server sends.
		return fmt.Errorf("fakecoder: fault for %q: a success status fits only a delete endpoint, whose success has no body", endpoint)
	}
	if err := f.validate(); err != nil {
		return fmt.Errorf("fakecoder: fault for %q: %w", endpoint, err)
	}
	if endpoint == EndpointServe && (f.Drip > 0 || f.Commit || f.CommitThenTimeout) {
		// These run the endpoint into a recorder, which cannot be
		// hijacked for the WebSocket upgrade.
		return fmt.Errorf("fakecoder: fault for %q: drip and commit cannot wrap a WebSocket upgrade; use status or latency", endpoint)
	}
	if f.AnswerOtherID && !slices.Contains(createEndpoints, endpoint) {
		return fmt.Errorf("fakecoder: fault for %q: answer-other-id fits only a create endpoint", endpoint)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults[endpoint] = &f
	return nil
}

// ClearFault removes the fault on one endpoint.
func (s *Server) ClearFault(endpoint string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.faults, endpoint)
}

// ClearFaults removes every fault.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.faults)
}

// Faults returns the active faults by endpoint, with Times counting down.
func (s *Server) Faults() map[string]Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]Fault, len(s.faults))
	for e, f := range s.faults {
		out[e] = *f
	}
	return out
}

// Requests returns how many requests reached endpoint since the last
// ResetCounts, whatever their outcome (401s and injected faults included).
func (s *Server) Requests(endpoint string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[endpoint]
}

// RequestCounts returns Requests for every endpoint.
func (s *Server) RequestCounts() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int)
	for _, e := range Endpoints() {
		out[e] = s.counts[e]
	}
	return out
}

// ResetCounts zeroes every request counter.
func (s *Server) ResetCounts() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.counts)
}

// hit counts a request and decides what its fault does to it.
func (s *Server) hit(endpoint string) (f Fault, fire bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counts[endpoint]++
	active, ok := s.faults[endpoint]
	if !ok {
		return Fault{}, false
	}
	f = *active
	if active.Times > 0 {
		if active.Times--; active.Times == 0 {
			delete(s.faults, endpoint)
		}
	}
	fire = (f.Status != 0 || f.CommitThenTimeout || f.AnswerOtherID) && (f.ErrorRate == 0 || rand.Float64() < f.ErrorRate)
	return f, fire
}

// instrument wraps an endpoint with request counting and fault injection.
// Faults act before authentication, like a broken network or proxy would.
// Every answer's Date header is the deployment's clock, as net/http stamps
// a real Coder's answers with its host's.
func (s *Server) instrument(endpoint string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Date", s.now().Format(http.TimeFormat))
		f, fire := s.hit(endpoint)
		if f.Latency > 0 && !s.wait(r.Context(), f.Latency) {
			return
		}
		if f.Drip > 0 {
			answer := httptest.NewRecorder()
			defer s.drip(w, r, answer, f.Drip)
			w = answer
		}
		if !fire {
			h.ServeHTTP(w, r)
			return
		}
		if f.AnswerOtherID {
			s.answerOtherID(w, r, endpoint, h)
			return
		}
		if f.Commit || f.CommitThenTimeout {
			h.ServeHTTP(httptest.NewRecorder(), r) // apply the request, drop the answer
			_, _ = io.Copy(io.Discard, r.Body)     // lets net/http notice a hang-up
		}
		if f.CommitThenTimeout {
			s.wait(r.Context(), 0)
			return
		}
		writeFault(w, f)
	})
}

// dripChunks is how many pieces a dripped body is sent in (fewer when it
// is shorter).
const dripChunks = 32

// drip sends answer's status and headers at once, and its body in pieces
// spread over d, the last at d.
func (s *Server) drip(w http.ResponseWriter, r *http.Request, answer *httptest.ResponseRecorder, d time.Duration) {
	for k, v := range answer.Header() {
		w.Header()[k] = v
	}
	w.Header().Del("Content-Length")
	w.WriteHeader(answer.Code)
	flush := func() {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	flush()
	body := answer.Body.Bytes()
	n := min(len(body), dripChunks)
	if n == 0 {
		s.wait(r.Context(), d)
		return
	}
	for i := range n {
		if !s.wait(r.Context(), d/time.Duration(n)) {
			return
		}
		_, _ = w.Write(body[i*len(body)/n : (i+1)*len(body)/n])
		flush()
	}
}

// createEndpoints are the endpoints that create an object.
var createEndpoints = []string{EndpointKeysCreate, EndpointProvidersCreate, EndpointMCPServerCreate}

// answerOtherID runs a create and answers its success with another
// object's id in place of the created one's.
func (s *Server) answerOtherID(w http.ResponseWriter, r *http.Request, endpoint string, h http.Handler) {
	answer := httptest.NewRecorder()
	h.ServeHTTP(answer, r)
	var body map[string]any
	if answer.Code != http.StatusCreated || json.Unmarshal(answer.Body.Bytes(), &body) != nil {
		// Not a success: nothing to lie about.
		for k, v := range answer.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(answer.Code)
		_, _ = w.Write(answer.Body.Bytes())
		return
	}
	created, _ := body["id"].(string)
	body["id"] = s.otherID(endpoint, created)
	b, _ := json.Marshal(body)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write(b)
}

// otherID is the id of the oldest live object of the endpoint's kind that
// is not created, or a new one.
func (s *Server) otherID(endpoint, created string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch endpoint {
	case EndpointKeysCreate:
		for _, k := range s.keys {
			if k.ID.String() != created {
				return k.ID.String()
			}
		}
	case EndpointMCPServerCreate:
		for _, m := range s.mcpServers {
			if m.ID.String() != created {
				return m.ID.String()
			}
		}
	default:
		for _, p := range s.providers {
			if p.ID.String() != created && !p.Deleted {
				return p.ID.String()
			}
		}
	}
	return uuid.NewString()
}

// deleteEndpoints are the endpoints whose success, 204, has no body.
var deleteEndpoints = []string{EndpointKeysDelete, EndpointProviderDelete}

// writeFault answers as f says: a 204 as Coder's deletes answer it, a 404
// with Coder's ResourceNotFound body, anything else with a message naming
// the injected status, unless f gives one.
func writeFault(w http.ResponseWriter, f Fault) {
	if f.Status == http.StatusNoContent {
		w.WriteHeader(f.Status)
		return
	}
	body := codersdk.Response{Message: fmt.Sprintf("fakecoder: injected %d %s.", f.Status, http.StatusText(f.Status))}
	if f.Status == http.StatusNotFound {
		body = notFoundReply.body.(codersdk.Response)
	}
	if f.Message != "" {
		body.Message = f.Message
	}
	writeJSON(w, f.Status, body)
}

// wait sleeps for d (forever if d is 0) and reports whether it slept the
// whole time rather than being cut short by the client or by Close.
func (s *Server) wait(ctx context.Context, d time.Duration) bool {
	var elapsed <-chan time.Time
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		elapsed = t.C
	}
	select {
	case <-elapsed:
		return true
	case <-ctx.Done():
		return false
	case <-s.done:
		return false
	}
}
