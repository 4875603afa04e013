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
	"context"
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// GoArch maps the architecture Docker reports for its server (`docker info
// --format '{{.Architecture}}'`, the kernel's `uname -m`: x86_64, aarch64,
// ...) to the GOARCH of images that run there; false when it has none.
func GoArch(dockerArch string) (string, bool) {
	switch a := strings.ToLower(strings.TrimSpace(dockerArch)); a {
	case "x86_64", "amd64", "x86-64", "x64":
		return "amd64", true
	case "aarch64", "arm64", "armv8", "armv8l":
		return "arm64", true
	case "armv7l", "armv7", "armv6l", "armv6", "armhf", "arm":
		return "arm", true
	case "i386", "i486", "i586", "i686", "x86", "386":
		return "386", true
	case "ppc64le", "s390x", "riscv64", "mips64", "mips64le", "ppc64":
		return a, true
	case "loongarch64", "loong64":
		return "loong64", true
	}
	return "", false
}

// NodeArch is the GOARCH of a kind node this machine would run: Docker's
// server architecture, else (no Docker engine, or an architecture Go does
// not know) the Go toolchain's own GOARCH. why says which, for the user.
func NodeArch(ctx context.Context) (arch, why string) {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "docker", "info", "--format", "{{.Architecture}}").Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		lines := strings.Split(strings.TrimSpace(string(exit.Stderr)), "\n")
		err = fmt.Errorf("%w: %s", err, strings.TrimSpace(lines[len(lines)-1]))
	}
	return nodeArch(string(out), err, runtime.GOARCH)
}

// nodeArch decides NodeArch from the outcome of `docker info`.
func nodeArch(dockerOut string, dockerErr error, goArch string) (arch, why string) {
	d := strings.TrimSpace(dockerOut)
	switch a, ok := GoArch(d); {
	case dockerErr != nil:
		return goArch, fmt.Sprintf("Go's GOARCH; no Docker engine answered (%v)", dockerErr)
	case ok:
		return a, fmt.Sprintf("Docker's server architecture %s", d)
	default:
		return goArch, fmt.Sprintf("Go's GOARCH; Docker's server architecture %q has no GOARCH here", d)
	}
}
