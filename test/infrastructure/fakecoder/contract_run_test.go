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

package fakecoder_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/coder/coder/v2/codersdk"
)

// A session is who sends a contract request.
type session int

const (
	owner     session = iota // the deployment's Owner
	member                   // a user without site roles
	anonymous                // no token at all
	malformed                // a token that is not "<10>-<22>"
	unknown                  // a well-formed token of no user
	userAdmin                // a headless user with the User Admin site role and a token of bounded lifetime
)

// check says how much of a response body both servers must agree on.
type check int

const (
	// checkBody compares the whole body after normalising values that are
	// generated (ids, times, secrets) to their kind and length.
	checkBody check = iota
	// checkShape compares only the set of JSON field paths and their types,
	// for bodies full of deployment-specific values (buildinfo, users/me).
	checkShape
)

// A step is one request of the provider, sent to both servers.
type step struct {
	name   string
	as     session
	method string
	path   string // {var} is replaced by a value saved by an earlier step
	body   string // JSON, with {var} replaced likewise; "" sends no body
	// gatewayKey, when set, is sent in codersdk.AIGatewayKeyHeader (with
	// {var} replaced), as a gateway replica dials /ai-gateway/serve.
	gatewayKey string
	check      check
	// fields, when set, compares only these dotted paths of the body
	// (e.g. "features.aibridge.enabled"; "features.*" is the sorted list
	// of the object's keys), for bodies whose other values depend on the
	// deployment (entitlements: user counts, a licence's other features).
	fields  []string
	save    map[string]string // var name -> dotted path in the response (e.g. "api_keys.0.id")
	wantRes int               // the status the real server is known to answer; 0 to only compare
}

// target is one server under contract: where it listens, the tokens of its
// sessions, and the vars its earlier responses saved.
type target struct {
	name   string
	url    string
	member string // base URL for member requests (the fake needs a second server)
	// userAdmin is the base URL for userAdmin requests (the fake's third).
	userAdmin string
	tokens    map[session]string
	vars      map[string]string
}

// response is what the contract compares.
type response struct {
	Status int
	Body   any // normalised JSON, or nil
	Shape  []string
}

func (tg *target) do(ctx context.Context, t *testing.T, s step) (response, bool) {
	t.Helper()
	path, ok := tg.expand(s.path)
	body, ok2 := tg.expand(s.body)
	gatewayKey, ok3 := tg.expand(s.gatewayKey)
	if !ok || !ok2 || !ok3 {
		return response{}, false
	}
	base := tg.url
	switch s.as {
	case member:
		base = tg.member
	case userAdmin:
		base = tg.userAdmin
	}
	var rd io.Reader
	if s.body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, s.method, base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if tok := tg.tokens[s.as]; tok != "" {
		req.Header.Set("Coder-Session-Token", tok)
	}
	if gatewayKey != "" {
		req.Header.Set(codersdk.AIGatewayKeyHeader, gatewayKey)
	}
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("%s: %s %s: %v", tg.name, s.method, path, err)
	}
	defer func() { _ = resp.Body.Close() }()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s: read body: %v", tg.name, err)
	}
	r := response{Status: resp.StatusCode}
	if len(bytes.TrimSpace(raw)) == 0 {
		return r, true
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		r.Body = "non-JSON body: " + string(raw)
		return r, true
	}
	for name, p := range s.save {
		if got, ok := lookup(v, p); ok {
			tg.vars[name] = fmt.Sprint(got)
		}
	}
	if len(s.fields) > 0 && !isError(v) {
		picked := make(map[string]any, len(s.fields))
		for _, f := range s.fields {
			picked[f] = pick(v, f)
		}
		r.Body = normalise("", picked)
		return r, true
	}
	r.Shape = shape(v, "$")
	if s.check == checkBody || isError(v) {
		r.Body = normalise("", v)
	}
	return r, true
}

// expand replaces {var} with the target's saved values; false when a var
// was never saved (an earlier step failed).
func (tg *target) expand(s string) (string, bool) {
	ok := true
	out := varRef.ReplaceAllStringFunc(s, func(m string) string {
		v, found := tg.vars[m[1:len(m)-1]]
		ok = ok && found
		return v
	})
	return out, ok
}

// varRef matches {name} but not JSON's {"...
var varRef = regexp.MustCompile(`\{[a-z][a-zA-Z0-9]*\}`)

// isError reports whether v is a codersdk.Response (an error body), whose
// message, detail and validations are always compared verbatim.
func isError(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	_, hasMsg := m["message"]
	return hasMsg
}

// lookup follows a dotted path ("api_keys.0.id") into decoded JSON.
func lookup(v any, path string) (any, bool) {
	for _, part := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[part]
		case []any:
			var i int
			if _, err := fmt.Sscan(part, &i); err != nil || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, v != nil
}

// pick reads one of a step's fields: a dotted path into objects, where
// a last part "*" gives the sorted keys of the object there. A missing
// field and a null one are told apart.
func pick(v any, path string) any {
	parts := strings.Split(path, ".")
	for i, part := range parts {
		m, ok := v.(map[string]any)
		if !ok {
			return "<not an object>"
		}
		if part == "*" && i == len(parts)-1 {
			keys := make([]string, 0, len(m))
			for k := range m {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			return keys
		}
		if v, ok = m[part]; !ok {
			return "<absent>"
		}
	}
	if v == nil {
		return "<null>"
	}
	return v
}

// shape lists every field path of v with its JSON type; array elements
// share the path "[]", so the shape ignores how many there are.
func shape(v any, path string) []string {
	var out []string
	switch x := v.(type) {
	case map[string]any:
		out = append(out, path+": object")
		for k, e := range x {
			out = append(out, shape(e, path+"."+k)...)
		}
	case []any:
		out = append(out, path+": array")
		for _, e := range x {
			out = append(out, shape(e, path+"[]")...)
		}
	case string:
		out = append(out, path+": string")
	case float64:
		out = append(out, path+": number")
	case bool:
		out = append(out, path+": bool")
	case nil:
		out = append(out, path+": null")
	}
	sort.Strings(out)
	return slices.Compact(out)
}

var (
	uuidRE     = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	loopbackRE = regexp.MustCompile(`127\.0\.0\.1:[0-9]+`)
	// generated holds the fields whose values each server makes up; only
	// their length must agree.
	generated = map[string]bool{"key": true, "key_prefix": true, "external_id": true, "webpush_public_key": true}
)

// normalise replaces generated values with their kind: UUIDs anywhere in a
// string, RFC 3339 times, loopback ports, and secrets by their length.
func normalise(field string, v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalise(k, e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalise(field, e)
		}
		return out
	case string:
		if generated[field] {
			return fmt.Sprintf("<%d chars>", len(x))
		}
		if _, err := time.Parse(time.RFC3339Nano, x); err == nil {
			return "<time>"
		}
		return loopbackRE.ReplaceAllString(uuidRE.ReplaceAllString(x, "<uuid>"), "127.0.0.1:<port>")
	}
	return v
}
