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
	"strconv"
	"strings"
)

// The cgroup files that hold a container's memory limit: cgroup v2's, then
// v1's.
const (
	cgroupV2MemoryMax = "/sys/fs/cgroup/memory.max"
	cgroupV1MemoryMax = "/sys/fs/cgroup/memory/memory.limit_in_bytes"
)

// softLimitShare is the share of the container's memory limit the Go
// runtime is asked to stay under: the rest is for what the runtime does not
// count (the binary's mapped pages, thread stacks) and for the moment a
// collection takes.
const softLimitShare = 0.9

// unlimited is at or above what cgroup v1 reports for no limit (the largest
// page-aligned int64).
const unlimited = int64(1) << 62

// SoftMemoryLimit is the soft memory limit the provider gives the Go
// runtime: 90% of its container's memory limit, read through readFile from
// cgroup v2's memory.max or else v1's memory.limit_in_bytes. The garbage
// collector then works harder as the heap nears the limit, instead of the
// heap doubling past it and the pod being killed: creating 20,000 keys
// peaked at 788 to 974 MiB of RSS without one, while their live heap was
// about 210 MiB (docs/performance.md). ok is false when GOMEMLIMIT is set
// (getenv; the runtime has taken it) or there is no limit to read.
func SoftMemoryLimit(getenv func(string) string, readFile func(string) ([]byte, error)) (limit int64, ok bool) {
	if getenv("GOMEMLIMIT") != "" {
		return 0, false
	}
	for _, f := range []string{cgroupV2MemoryMax, cgroupV1MemoryMax} {
		b, err := readFile(f)
		if err != nil {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err != nil || n <= 0 || n >= unlimited {
			// "max", or v1's number for none: no limit.
			return 0, false
		}
		return int64(float64(n) * softLimitShare), true
	}
	return 0, false
}
