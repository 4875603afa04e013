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

import "testing"

func TestCanonicalURLIsSharedByEverySpellingOfOneCoder(t *testing.T) {
	cases := map[string]struct {
		in, want string
	}{
		"already canonical":        {in: "https://coder.example.com", want: "https://coder.example.com"},
		"upper-case scheme, host":  {in: "HTTPS://Coder.Example.COM/", want: "https://coder.example.com"},
		"default https port":       {in: "https://coder.example.com:443/", want: "https://coder.example.com"},
		"default http port":        {in: "http://coder.example.com:80", want: "http://coder.example.com"},
		"other port kept":          {in: "https://coder.example.com:8443//", want: "https://coder.example.com:8443"},
		"http on 443 is not https": {in: "http://coder.example.com:443", want: "http://coder.example.com:443"},
		"path kept, case and all":  {in: "https://proxy.example.com/Coder/", want: "https://proxy.example.com/Coder"},
		"IPv6 literal":             {in: "http://[::1]:80/", want: "http://[::1]"},
		"IPv6 literal with port":   {in: "http://[::1]:3000", want: "http://[::1]:3000"},
		"refused URL as given":     {in: "ftp://coder.example.com", want: "ftp://coder.example.com"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := CanonicalURL(tc.in); got != tc.want {
				t.Errorf("CanonicalURL(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
