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

package provider

import (
	"io/fs"
	"testing"
)

func TestSoftMemoryLimitIsNinetyPercentOfTheContainersLimit(t *testing.T) {
	const mi = int64(1) << 20
	cases := map[string]struct {
		env   string
		files map[string]string
		want  int64
		ok    bool
	}{
		"cgroup v2 limit of 512Mi":  {files: map[string]string{cgroupV2MemoryMax: "536870912\n"}, want: 512 * mi * 9 / 10, ok: true},
		"cgroup v2 without a limit": {files: map[string]string{cgroupV2MemoryMax: "max\n", cgroupV1MemoryMax: "536870912\n"}},
		"cgroup v1 limit of 1Gi":    {files: map[string]string{cgroupV1MemoryMax: "1073741824\n"}, want: 1024 * mi * 9 / 10, ok: true},
		"cgroup v1 without a limit": {files: map[string]string{cgroupV1MemoryMax: "9223372036854771712\n"}},
		"GOMEMLIMIT is set":         {env: "400MiB", files: map[string]string{cgroupV2MemoryMax: "536870912\n"}},
		"no cgroup files":           {},
		"unreadable limit":          {files: map[string]string{cgroupV2MemoryMax: "lots\n"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			getenv := func(k string) string {
				if k == "GOMEMLIMIT" {
					return tc.env
				}
				return ""
			}
			read := func(f string) ([]byte, error) {
				if v, ok := tc.files[f]; ok {
					return []byte(v), nil
				}
				return nil, fs.ErrNotExist
			}
			got, ok := SoftMemoryLimit(getenv, read)
			if got != tc.want || ok != tc.ok {
				t.Errorf("SoftMemoryLimit = %d, %v; want %d, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}
