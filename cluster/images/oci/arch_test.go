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

package oci

import (
	"errors"
	"strings"
	"testing"
)

func TestImagesAreBuiltForTheKindNodesArchitecture(t *testing.T) {
	cases := map[string]struct {
		dockerOut string
		dockerErr error
		want      string
		why       string
	}{
		"IntelLinux":          {dockerOut: "x86_64\n", want: "amd64", why: "Docker's server architecture x86_64"},
		"AppleSilicon":        {dockerOut: "aarch64\n", want: "arm64", why: "Docker's server architecture aarch64"},
		"ReportedAsGOARCH":    {dockerOut: "arm64", want: "arm64"},
		"RaspberryPi32":       {dockerOut: "armv7l", want: "arm"},
		"IBMZ":                {dockerOut: "s390x", want: "s390x"},
		"Power":               {dockerOut: "ppc64le", want: "ppc64le"},
		"RISCV":               {dockerOut: "riscv64", want: "riscv64"},
		"NoEngine":            {dockerErr: errors.New("exit status 1: Cannot connect to the Docker daemon"), want: "go-arch", why: "Cannot connect"},
		"UnknownArchitecture": {dockerOut: "vax", want: "go-arch", why: `"vax" has no GOARCH`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, why := nodeArch(tc.dockerOut, tc.dockerErr, "go-arch")
			if got != tc.want || !strings.Contains(why, tc.why) {
				t.Errorf("nodeArch(%q, %v) = %q, %q; want %q, with %q", tc.dockerOut, tc.dockerErr, got, why, tc.want, tc.why)
			}
		})
	}
}
