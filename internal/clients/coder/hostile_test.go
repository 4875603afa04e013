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
	"crypto/rand"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"github.com/coder/coder/v2/codersdk"
)

// endless streams a body that never ends, counting what it wrote. It stops
// at a safety cap far past the limit, so a broken bound fails the test
// instead of exhausting the machine.
func endless(status int, contentType, head string, served *atomic.Int64, done chan<- struct{}) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		defer close(done)
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(status)
		n, _ := w.Write([]byte(head))
		served.Add(int64(n))
		chunk := []byte(strings.Repeat(`{"id":"0b0e7c4e-6a53-4a4f-9d0c-2f1f3b4b5c6d","name":"k"},`, 1024))
		for served.Load() < 8*maxResponseBody {
			n, err := w.Write(chunk)
			served.Add(int64(n))
			if err != nil {
				return
			}
		}
	}
}

func TestClientStopsReadingAnEndlessResponse(t *testing.T) {
	cases := map[string]struct {
		reason      string
		status      int
		contentType string
		head        string
		call        caller
		want        Class
	}{
		"List": {
			reason:      "a list that never ends would be buffered whole by json.Decoder",
			status:      http.StatusOK,
			contentType: "application/json",
			head:        "[",
			call: func(ctx context.Context, c *Client) error {
				_, err := c.ListKeys(ctx)
				return err
			},
			want: ClassInvalid,
		},
		"ErrorBody": {
			reason:      "codersdk reads an error body with io.ReadAll",
			status:      http.StatusInternalServerError,
			contentType: "text/html",
			call:        createKey,
			want:        ClassUnavailable,
		},
		"JSONErrorBody": {
			reason:      "a JSON error body is read whole before it is decoded",
			status:      http.StatusBadRequest,
			contentType: "application/json",
			head:        `{"message":"`,
			call:        createProvider,
			want:        ClassInvalid,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var served atomic.Int64
			done := make(chan struct{})
			_, c := newServer(t, endless(tc.status, tc.contentType, tc.head, &served, done))
			// A long timeout: the limit, not the clock, must end the call.
			c.sdk.HTTPClient.Timeout = time.Minute

			err := tc.call(context.Background(), c)

			select {
			case <-done:
			case <-time.After(30 * time.Second):
				t.Fatalf("%s: the server is still writing after the call returned %v", tc.reason, err)
			}
			t.Logf("served %d MiB before the client stopped reading; error: %v", served.Load()>>20, err)
			if err == nil || !strings.Contains(err.Error(), errBodyTooLarge.Error()) {
				t.Errorf("%s: want an error saying %q, got %v", tc.reason, errBodyTooLarge, err)
			}
			if diff := cmp.Diff(tc.want, ClassOf(err)); diff != "" {
				t.Errorf("%s\nClassOf: -want, +got:\n%s", tc.reason, diff)
			}
			// Socket buffers let the server get some MiB ahead of the reader.
			if got := served.Load(); got > 2*maxResponseBody {
				t.Errorf("%s: server wrote %d bytes; the client must stop reading at %d", tc.reason, got, maxResponseBody)
			}
		})
	}
}

func TestClientReadsABodyOfExactlyTheLimit(t *testing.T) {
	body := `"` + strings.Repeat("a", maxResponseBody-3) + `"` + "\n"
	_, c := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}))
	_, err := c.ListKeys(context.Background())
	// A string is not a list: the decode fails, but not on the limit.
	if err == nil || strings.Contains(err.Error(), errBodyTooLarge.Error()) {
		t.Errorf("a body of exactly %d bytes must be read whole; got %v", len(body), err)
	}
}

func TestErrorTextIsBounded(t *testing.T) {
	long := strings.Repeat("Coder says something long. ", 400)
	var vs []codersdk.ValidationError
	for i := range 100 {
		vs = append(vs, codersdk.ValidationError{Field: fmt.Sprintf("field%d", i), Detail: long})
	}
	_, c := newServer(t, coderError(http.StatusBadRequest, codersdk.Response{Message: long, Detail: long, Validations: vs}))

	err := createKey(context.Background(), c)

	if err == nil {
		t.Fatal("call succeeded")
	}
	text := err.Error()
	if len(text) > maxErrorText {
		t.Errorf("error text is %d bytes, want at most %d: a condition must stay readable", len(text), maxErrorText)
	}
	if want := "POST /api/v2/ai-gateway/keys: 400 Bad Request: Coder says something long."; !strings.HasPrefix(text, want) {
		t.Errorf("error text %q does not start with %q", text, want)
	}
}

// coderKey is a plaintext in Coder's key geometry: 43 alphanumerics.
func coderKey() string {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, 43)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}

func TestPlaintextKeyInAnUnexpectedResponseNeverReachesTheError(t *testing.T) {
	key := coderKey()
	created := codersdk.CreateAIGatewayKeyResponse{}
	created.ID, created.Name, created.KeyPrefix, created.Key = uuid.New(), "gateway-1", key[:11], key
	text := func(status int, contentType, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", contentType)
			w.WriteHeader(status)
			_, _ = w.Write([]byte(body))
		}
	}
	cases := map[string]struct {
		reason  string
		handler http.Handler
	}{
		"OKInsteadOfCreated": {
			reason:  "Coder answers 201; a 200 with the key makes codersdk quote the body",
			handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, http.StatusOK, created) }),
		},
		"AcceptedAsText": {
			reason:  "a non-JSON body is quoted as it is",
			handler: text(http.StatusAccepted, "text/plain", "created "+key+" ok"),
		},
		"KeyInMessage": {
			reason:  "a message is quoted as it is",
			handler: coderError(http.StatusBadRequest, codersdk.Response{Message: "Key " + key + " is not valid."}),
		},
		"KeyInValidation": {
			reason: "validations are quoted as they are",
			handler: coderError(http.StatusBadRequest, codersdk.Response{Message: "Invalid.", Validations: []codersdk.ValidationError{
				{Field: "key", Detail: key},
			}}),
		},
		"KeyLabelledButShort": {
			reason:  "a labelled secret is redacted whatever its length",
			handler: text(http.StatusOK, "text/plain", `token=abc123 {"api_key": "short-secret-1"}`),
		},
		"KeyCutByCodersdk": {
			reason:  "codersdk cuts a non-JSON body at 2 KiB; the cut piece is too short to recognise",
			handler: text(http.StatusOK, "text/plain", strings.Repeat(" ", 2048-19)+key),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, c := newServer(t, tc.handler)

			_, err := c.CreateKey(context.Background(), "gateway-1")

			if err == nil {
				t.Fatalf("%s: call succeeded", tc.reason)
			}
			t.Log(err)
			for _, s := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err)} {
				// Any 8 characters of the key's secret part would be a leak.
				for i := 11; i+8 <= len(key); i++ {
					if strings.Contains(s, key[i:i+8]) {
						t.Fatalf("%s: part of the key leaked into: %s", tc.reason, s)
					}
				}
				for _, secret := range []string{"abc123", "short-secret-1"} {
					if strings.Contains(s, secret) {
						t.Errorf("%s: %q leaked into: %s", tc.reason, secret, s)
					}
				}
			}
		})
	}
}
