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
	"net"
	"net/url"
	"strings"
)

// CanonicalURL is the form of a Coder URL that two ProviderConfigs naming
// one Coder share: scheme and host lower-case, no default port, no trailing
// slash. A URL the client would refuse is returned as given: it reaches no
// Coder, so it matches nothing but itself.
func CanonicalURL(raw string) string {
	u, err := parseURL(raw)
	if err != nil {
		return raw
	}
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	switch {
	case port != "":
		host = net.JoinHostPort(host, port)
	case strings.Contains(host, ":"):
		host = "[" + host + "]" // An IPv6 literal.
	}
	return (&url.URL{Scheme: scheme, Host: host, Path: strings.TrimRight(u.Path, "/")}).String()
}
