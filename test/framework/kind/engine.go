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

package kind

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Engine is the container engine kind runs its node in.
type Engine string

// The engines `make e2e` runs on. Docker uses kind's own node image from
// its registry; Podman (rootful) a node image built offline by
// cluster/kind/node/build.sh, for machines that reach no registry.
const (
	Docker Engine = "docker"
	Podman Engine = "podman"
)

// EnvProvider is kind's variable that picks the engine; `make e2e` honours
// it when the user sets it and sets it for kind when it picks Podman.
const EnvProvider = "KIND_EXPERIMENTAL_PROVIDER"

// NoEngineError says why the kind e2e cannot run here.
type NoEngineError struct{ Reason string }

func (e *NoEngineError) Error() string {
	return "kind e2e needs Docker or rootful Podman: " + e.Reason
}

// Probe is what asking an engine for its state gave: `docker info`, or
// `podman info --format {{.Host.Security.Rootless}}`.
type Probe struct {
	Output []byte
	Err    error
}

// dockerReason says why Docker is not usable, or "" when it is. A client
// without a reachable engine exits non-zero (and prints the client section
// only); a missing binary fails to start.
func dockerReason(p Probe) string {
	out := strings.TrimSpace(string(p.Output))
	var notFound *exec.Error
	switch {
	case errors.As(p.Err, &notFound):
		return "docker info: " + notFound.Err.Error() + " (is Docker installed?)"
	case p.Err != nil:
		return fmt.Sprintf("docker info: %v: %s", p.Err, lastLine(out))
	case !strings.Contains(out, "Server Version"):
		return "docker info: no server section (is the Docker engine running?): " + lastLine(out)
	}
	return ""
}

// podmanReason says why Podman is not usable, or "" when it is: the node
// image is built with debootstrap and chroot, and kind's rootless Podman
// needs cgroup v2 and delegation this project does not set up.
func podmanReason(p Probe) string {
	out := strings.TrimSpace(string(p.Output))
	var notFound *exec.Error
	switch {
	case errors.As(p.Err, &notFound):
		return "podman info: " + notFound.Err.Error() + " (hack/kind-podman-setup.sh installs it on Debian)"
	case p.Err != nil:
		return fmt.Sprintf("podman info: %v: %s", p.Err, lastLine(out))
	case out == "true":
		return "podman is rootless here; run `make e2e` as root (the node image is built with debootstrap and chroot)"
	case out != "false":
		return fmt.Sprintf("podman info: unexpected answer %q to whether it is rootless", lastLine(out))
	}
	return ""
}

// EngineDecision picks the engine: the one KIND_EXPERIMENTAL_PROVIDER
// names when set, else Docker when its engine answers, else rootful
// Podman. The error names every engine it tried and why each failed.
func EngineDecision(provider string, docker, podman Probe) (Engine, error) {
	reasons := map[Engine]string{Docker: dockerReason(docker), Podman: podmanReason(podman)}
	switch p := Engine(strings.TrimSpace(provider)); p {
	case Docker, Podman:
		if reasons[p] != "" {
			return "", &NoEngineError{Reason: fmt.Sprintf("%s=%s: %s", EnvProvider, p, reasons[p])}
		}
		return p, nil
	case "":
	default:
		return "", &NoEngineError{Reason: fmt.Sprintf("%s=%s: want docker or podman", EnvProvider, p)}
	}
	for _, e := range []Engine{Docker, Podman} {
		if reasons[e] == "" {
			return e, nil
		}
	}
	return "", &NoEngineError{Reason: reasons[Docker] + "; " + reasons[Podman]}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// CheckEngine asks Docker and Podman for their state and decides.
func CheckEngine(ctx context.Context) (Engine, error) {
	probe := func(name string, args ...string) Probe {
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
		return Probe{Output: out, Err: err}
	}
	provider := os.Getenv(EnvProvider)
	var docker, podman Probe
	if provider != string(Podman) {
		docker = probe("docker", "info")
	}
	if provider == string(Podman) || dockerReason(docker) != "" {
		podman = probe("podman", "info", "--format", "{{.Host.Security.Rootless}}")
	}
	return EngineDecision(provider, docker, podman)
}
