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
	"errors"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"
)

// maxResponseBody bounds every response body read from Coder. A
// ProviderConfig's URL is chosen by whoever may create one, so a server that
// streams without end must fail the call, not fill the provider's memory.
// 16 MiB is generous: a key or provider in a list is a few hundred bytes, so
// it holds tens of thousands of them, far beyond a real deployment.
const maxResponseBody = 16 << 20

// maxErrorText bounds the text of an Error, which ends up in conditions and
// events: a few hundred bytes keep a condition readable in kubectl describe.
const maxErrorText = 512

var errBodyTooLarge = errors.New("the response is larger than 16 MiB; is the URL Coder's API?")

// limitBody fails a read past limit (http.MaxBytesReader), rather than
// ending the body silently as io.LimitReader does, so a truncated list is
// never mistaken for a complete one; the failure says what it means here.
func limitBody(rc io.ReadCloser, limit int64) io.ReadCloser {
	if rc == nil || rc == http.NoBody {
		return rc
	}
	return tooLarge{http.MaxBytesReader(nil, rc, limit)}
}

// tooLarge turns http.MaxBytesReader's error into errBodyTooLarge.
type tooLarge struct{ io.ReadCloser }

func (b tooLarge) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
		err = errBodyTooLarge
	}
	return n, err
}

// limitText cuts s to at most n bytes on a rune boundary.
func limitText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const more = "..."
	cut := n - len(more)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.ToValidUTF8(s[:cut], "") + more
}
