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
	"regexp"
	"slices"
	"strings"
)

var (
	// secretRun is a run of letters and digits long enough to be a secret
	// nobody told us about: an AI Gateway key is 43 alphanumerics
	// (coderd/aibridge/keys), the secret half of a session token 22. A key
	// reaches an error when Coder (or something posing as it) answers a
	// create with an unexpected status and the key in the body. Words in
	// Coder's messages are far shorter; a long id in them is lost, which is
	// the price of never printing a key.
	secretRun = regexp.MustCompile(`[A-Za-z0-9]{20,}`)
	// secretField is a value labelled as a secret, as a JSON field or in
	// key=value form, whatever its length: "key":"...", "api_key": "...",
	// token=.... Prose ("keys: set the URL") is left alone.
	secretField = regexp.MustCompile(`(?i)("[a-z_-]*(?:key|token|secret|password)[a-z_-]*"\s*:\s*"?|\b[a-z_-]*(?:key|token|secret|password)=)([^"\s,}&;]+)`)
)

// redactor removes the secrets a call sent, and anything that looks like a
// secret, from text the server sent back.
type redactor struct {
	known *strings.Replacer
}

// newRedactor replaces every known secret, longest first: strings.Replacer
// takes the first listed of the matches at one position, so a secret that
// contains another is removed whole.
func newRedactor(secrets []string) redactor {
	s := slices.Clone(secrets)
	slices.SortFunc(s, func(a, b string) int { return len(b) - len(a) })
	var pairs []string
	for _, secret := range s {
		if secret != "" {
			pairs = append(pairs, secret, redacted)
		}
	}
	return redactor{known: strings.NewReplacer(pairs...)}
}

// Replace returns s without secrets, on one line of bounded length.
func (r redactor) Replace(s string) string {
	s = dropCutWord(s)
	s = r.known.Replace(s)
	s = secretField.ReplaceAllString(s, "${1}"+redacted)
	s = secretRun.ReplaceAllString(s, redacted)
	return shorten(s)
}

// dropCutWord drops the last word of a text codersdk cut short (it appends
// "..." past 1 or 2 KiB): a secret cut there may be too short to recognise.
func dropCutWord(s string) string {
	t, ok := strings.CutSuffix(s, "...")
	if !ok {
		return s
	}
	i := strings.LastIndexAny(t, " \t\r\n")
	return t[:i+1] + "..."
}
