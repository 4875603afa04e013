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

package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestScaleRunsSpreadKeysOverNamespacesOfAtMost500(t *testing.T) {
	cases := map[string]struct {
		keys int
		want []int
	}{
		"1,000 keys fill two namespaces":  {keys: 1000, want: []int{500, 500}},
		"5,000 keys fill ten":             {keys: 5000, want: repeat(500, 10)},
		"20,000 keys fill forty":          {keys: 20000, want: repeat(500, 40)},
		"1,100 keys are spread evenly":    {keys: 1100, want: []int{367, 367, 366}},
		"fewer than 500 keys take one ns": {keys: 30, want: []int{30}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, spread(tc.keys)); diff != "" {
				t.Errorf("spread(%d): -want +got:\n%s", tc.keys, diff)
			}
		})
	}
}

func repeat(v, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = v
	}
	return out
}
