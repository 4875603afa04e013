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

package testenv

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/crossplane-contrib/provider-coder/test/framework/packagerbac"
)

// Denials records the provider's requests that RBAC refused. The provider
// runs with exactly the RBAC of its package, so a missing rule shows up here
// even where the provider only logs the error and retries.
type Denials struct {
	mu   sync.Mutex
	seen []string
	// expected are the denials scenarios cause on purpose.
	expected []*expectedDenial
}

// An expectedDenial is a part of the denials a scenario causes on purpose,
// and the span of the provider's log (byte offsets) in which it does;
// to is -1 while the scenario runs.
type expectedDenial struct {
	part     string
	from, to int
}

// ExpectDenials makes the provider's RBAC denials whose message contains
// part expected, and no failure of the run, until done is called: in its
// requests and in its log alike. For a scenario that takes a rule away on
// purpose.
func (e *Env) ExpectDenials(part string) (done func()) {
	d := e.Denials
	x := &expectedDenial{part: part, from: len(e.Logs.String()), to: -1}
	d.mu.Lock()
	d.expected = append(d.expected, x)
	d.mu.Unlock()
	return func() {
		to := len(e.Logs.String())
		d.mu.Lock()
		defer d.mu.Unlock()
		x.to = to
	}
}

// note records a denial unless a scenario expects it now.
func (d *Denials) note(denial string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, x := range d.expected {
		if x.to < 0 && strings.Contains(denial, x.part) {
			return
		}
	}
	d.seen = append(d.seen, denial)
}

// unexpectedInLog returns the denials of the provider's log (the local
// provider's, whose offsets ExpectDenials noted) that no scenario expected
// where they were logged.
func (d *Denials) unexpectedInLog(logs string) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []string
	off := 0
	for _, l := range packagerbac.LoggedDenials(logs) {
		at := off + strings.Index(logs[off:], l)
		off = at + len(l)
		plain := strings.ReplaceAll(l, `\"`, `"`)
		expected := false
		for _, x := range d.expected {
			expected = expected || (at >= x.from && (x.to < 0 || at < x.to) && strings.Contains(plain, x.part))
		}
		if !expected {
			out = append(out, l)
		}
	}
	return out
}

// Wrap suits rest.Config.WrapTransport.
func (d *Denials) Wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripperFn(func(req *http.Request) (*http.Response, error) {
		resp, err := rt.RoundTrip(req)
		if err != nil || resp.StatusCode != http.StatusForbidden {
			return resp, err
		}
		body, rerr := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
		_ = resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(body))
		if rerr != nil {
			return resp, nil
		}
		if msg, ok := rbacDenial(body); ok {
			d.note(fmt.Sprintf("%s %s: %s", req.Method, req.URL.Path, msg))
		}
		return resp, nil
	})
}

// All returns every denial so far.
func (d *Denials) All() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.seen...)
}

type roundTripperFn func(*http.Request) (*http.Response, error)

func (f roundTripperFn) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// rbacDenial tells an authorization failure (`User "u" cannot list
// resource ...`) from other 403 answers, such as the namespace lifecycle
// refusing new objects in a terminating namespace, which are expected.
// Built-in resources answer in protobuf, custom resources in JSON.
func rbacDenial(body []byte) (string, bool) {
	s := &metav1.Status{}
	if err := json.Unmarshal(body, s); err != nil {
		obj, _, derr := scheme.Codecs.UniversalDeserializer().Decode(body, nil, nil)
		st, ok := obj.(*metav1.Status)
		if derr != nil || !ok {
			return "", false
		}
		s = st
	}
	if s.Reason != metav1.StatusReasonForbidden {
		return "", false
	}
	return s.Message, strings.Contains(s.Message, "User \""+packagerbac.User()+"\" cannot ")
}
