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

package coder

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/coder/coder/v2/codersdk"
)

// testKeyPlaintext has the geometry of an AI Gateway key's plaintext
// (coderd/aibridge/keys: 43 alphanumeric characters, the first 11 the
// visible prefix). Coder returns it once, in the 201 of a key create.
const testKeyPlaintext = "Kp7Qx2Vd9LmAbCdEfGhIjKlMnOpQrStUvWxYz012345"

// fuzzSecrets are the secrets a response may carry: the session token (any
// call), an API key of the request (provider create and update), and a key
// plaintext (key create).
var fuzzSecrets = []string{testToken, testAPIKey, testKeyPlaintext}

// FuzzErrorsNeverCarrySecrets answers every call with any status,
// content type and body, with a secret placed anywhere in it: in the raw
// body, in Coder's message, detail or a validation, or as the plaintext of
// a key create's answer. Whatever the answer, the call's error, its printed
// forms, its class and its forbidden cause never contain the secret.
func FuzzErrorsNeverCarrySecrets(f *testing.F) {
	jsonCT, html := "application/json; charset=utf-8", "text/html"
	for _, s := range []struct {
		status      uint16
		contentType string
		place, call uint8
		pre, post   string
	}{
		// The cases of TestErrorsAreClassifiedAndNeverCarrySecrets.
		{401, jsonCT, 1, 0, "You are signed out ", "."},
		{403, jsonCT, 1, 2, "AI Gateway is a Premium feature. ", ""},
		{403, jsonCT, 2, 0, "You don't have permission ", ""},
		{404, jsonCT, 1, 3, "Resource not found ", ""},
		{404, jsonCT, 2, 3, "Route not found.", ""},
		{404, html, 0, 3, "<html>nothing here ", "</html>"},
		{409, jsonCT, 1, 0, `AI provider "anthropic" already exists. `, ""},
		{400, jsonCT, 3, 2, "name", ""},
		{400, jsonCT, 4, 1, "bad key ", ""},
		{500, jsonCT, 1, 0, "Internal error ", ""},
		{503, "application/json", 0, 0, "{not json", ""},
		{502, html, 0, 2, "bad gateway ", ""},
		{429, jsonCT, 1, 0, "You've been rate limited.", ""},
		{200, html, 0, 4, "welcome ", ""},
		// A key create answered 200 instead of 201: the plaintext is in the
		// body codersdk quotes as the error's detail.
		{200, jsonCT, 5, 2, "", ""},
		{200, jsonCT, 0, 2, `{"key":"`, `"}`},
		{202, jsonCT, 1, 2, "", ""},
		{302, html, 0, 0, "moved ", ""},
	} {
		for secret := range uint8(len(fuzzSecrets)) {
			f.Add(s.status, s.contentType, s.place, s.call, secret, s.pre, s.post)
		}
	}
	var answer struct {
		status      int
		contentType string
		body        []byte
	}
	_, c := newServer(f, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if answer.contentType != "" {
			w.Header().Set("Content-Type", answer.contentType)
		}
		w.WriteHeader(answer.status)
		_, _ = w.Write(answer.body)
	}))
	f.Fuzz(func(t *testing.T, status uint16, contentType string, place, call, secret uint8, pre, post string) {
		// net/http refuses other statuses and header values.
		answer.status = int(status)
		if answer.status < 200 || answer.status > 599 {
			answer.status = 200 + answer.status%400
		}
		answer.contentType = strings.Map(func(r rune) rune {
			if r < 0x20 || r > 0x7e {
				return -1
			}
			return r
		}, contentType)
		// A secret the call holds: the token, the API key a provider call
		// sends, or the plaintext a key create's success carries (Coder
		// answers it with 201 only; any other success is unexpected).
		call %= 5
		s := fuzzSecrets[int(secret)%len(fuzzSecrets)]
		switch {
		case s == testAPIKey && call > 1, s == testKeyPlaintext && (call != 2 || answer.status >= 300):
			s = testToken
		}
		answer.body = responseWith(place, pre+s+post)

		var err error
		ctx := context.Background()
		switch call {
		case 0:
			err = createProvider(ctx, c)
		case 1:
			err = updateProvider(ctx, c)
		case 2:
			err = createKey(ctx, c)
		case 3:
			err = deleteKey(ctx, c)
		default:
			err = buildInfo(ctx, c)
		}
		if err == nil {
			return
		}
		out := fmt.Sprintf("%s\n%v\n%+v\n%#v\n%s\n%s", err.Error(), err, err, err, ClassOf(err), ForbiddenCause(err))
		for _, sec := range []string{s, testToken} {
			if strings.Contains(out, sec) {
				t.Fatalf("answer %d %q %q: the error carries a secret:\n%s", answer.status, answer.contentType, answer.body, out)
			}
		}
	})
}

// responseWith is a body that carries text: raw (0), as Coder's message
// (1), detail (2), a validation's field (3) or detail (4), or as the
// plaintext of a created key (5).
func responseWith(place uint8, text string) []byte {
	var v any
	switch place % 6 {
	case 0:
		return []byte(text)
	case 1:
		v = codersdk.Response{Message: text}
	case 2:
		v = codersdk.Response{Message: "failed", Detail: text}
	case 3:
		v = codersdk.Response{Message: "invalid", Validations: []codersdk.ValidationError{{Field: text, Detail: "bad"}}}
	case 4:
		v = codersdk.Response{Message: "invalid", Validations: []codersdk.ValidationError{{Field: "name", Detail: text}}}
	default:
		v = codersdk.CreateAIGatewayKeyResponse{Key: text}
	}
	b, _ := json.Marshal(v)
	return b
}
