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
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
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

// Probe is what asking an engine for its state gave: `docker info`,
// `docker run --privileged` (privilegedArgs), or `podman info --format
// {{.Host.Security.Rootless}}`.
type Probe struct {
	Output []byte
	Err    error
	// ExitCode is the command's exit status when it ran and exited
	// non-zero, else 0.
	ExitCode int
}

// Probes are the engines' answers EngineDecision decides from. A probe
// that was not run is the zero Probe: CheckEngine runs DockerPrivileged
// only when `docker info` answered, and Podman only when Docker will not do.
type Probes struct {
	Docker, DockerPrivileged, Podman Probe
}

// dockerReason says why Docker is not usable, or "" when it is: its engine
// must answer and run a privileged container, as kind's node is one.
func dockerReason(info, privileged Probe) string {
	if r := dockerInfoReason(info); r != "" {
		return r
	}
	return privilegedReason(privileged)
}

// dockerInfoReason says why `docker info` shows no engine, or "". A client
// without a reachable engine exits non-zero (and prints the client section
// only); a missing binary fails to start.
func dockerInfoReason(info Probe) string {
	out := strings.TrimSpace(string(info.Output))
	var notFound *exec.Error
	switch {
	case errors.As(info.Err, &notFound):
		return "docker info: " + notFound.Err.Error() + " (is Docker installed?)"
	case info.Err != nil:
		return fmt.Sprintf("docker info: %v: %s", info.Err, lastLine(out))
	case !strings.Contains(out, "Server Version"):
		return "docker info: no server section (is the Docker engine running?): " + lastLine(out)
	}
	return ""
}

// dockerProbeExec is the command the privileged probe runs in an empty
// image: it does not exist, so a container that starts ends with Docker's
// exit status 127 ("the contained command cannot be found") and the
// runtime's complaint that it cannot find this path, which the runtime
// reaches only after it applied the privileged container's capabilities. A refused container exits 125 with the daemon's reason
// (on a host whose capability bounding set lacks one, such as
// CAP_SYS_RESOURCE in a sandbox: "unable to apply caps: operation not
// permitted").
const dockerProbeExec = "/provider-coder-engine-probe"

// privilegedReason says why Docker cannot run kind's privileged node, or
// "" when the probe's container started. Docker's CLI also exits 127 for
// any other "no such file or directory", so the output must name the
// probe's own command.
func privilegedReason(p Probe) string {
	if p.ExitCode == 127 && bytes.Contains(p.Output, []byte(dockerProbeExec)) {
		return ""
	}
	why := daemonError(string(p.Output))
	if p.Err == nil {
		return "docker run --privileged: exit status 0 from a command that does not exist (want 127): " + why
	}
	return fmt.Sprintf("docker cannot run a privileged container (kind's node is one): %v: %s", p.Err, why)
}

// daemonError is the line of a docker command's output that gives the
// daemon's reason ("docker: Error response from daemon: ..."), else its
// last line: the CLI ends with a usage hint.
func daemonError(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "Error response from daemon") || strings.HasPrefix(strings.TrimSpace(l), "Error") {
			return strings.TrimSpace(l)
		}
	}
	return lastLine(out)
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
// names when set, else Docker when its engine answers and runs a
// privileged container, else rootful Podman. The error names every engine
// it tried and why each failed, in the engine's own words.
func EngineDecision(provider string, p Probes) (Engine, error) {
	reasons := map[Engine]string{Docker: dockerReason(p.Docker, p.DockerPrivileged), Podman: podmanReason(p.Podman)}
	switch e := Engine(strings.TrimSpace(provider)); e {
	case Docker, Podman:
		if reasons[e] != "" {
			return "", &NoEngineError{Reason: fmt.Sprintf("%s=%s: %s", EnvProvider, e, reasons[e])}
		}
		return e, nil
	case "":
	default:
		return "", &NoEngineError{Reason: fmt.Sprintf("%s=%s: want docker or podman", EnvProvider, e)}
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

// dockerProbeImage is the empty image the privileged probe runs; CheckEngine
// imports it from an empty tar (no registry) and removes it afterwards.
const dockerProbeImage = "localhost/provider-coder/engine-probe:empty"

// CheckEngine asks Docker and Podman for their state and decides.
func CheckEngine(ctx context.Context) (Engine, error) {
	provider := os.Getenv(EnvProvider)
	var p Probes
	if provider != string(Podman) {
		p.Docker = probe(ctx, nil, "docker", "info")
		if dockerInfoReason(p.Docker) == "" {
			p.DockerPrivileged = probeDockerPrivileged(ctx)
		}
	}
	if provider == string(Podman) || dockerReason(p.Docker, p.DockerPrivileged) != "" {
		p.Podman = probe(ctx, nil, "podman", "info", "--format", "{{.Host.Security.Rootless}}")
	}
	return EngineDecision(provider, p)
}

// probeDockerPrivileged runs a privileged container of an empty image, as
// kind runs its node: see dockerProbeExec.
func probeDockerPrivileged(ctx context.Context) Probe {
	emptyTar := make([]byte, 1024) // a tar archive's end: two zero blocks
	if imp := probe(ctx, bytes.NewReader(emptyTar), "docker", "import", "-", dockerProbeImage); imp.Err != nil {
		imp.Err = fmt.Errorf("docker import (the probe's empty image): %w", imp.Err)
		return imp
	}
	defer probe(context.WithoutCancel(ctx), nil, "docker", "image", "rm", "-f", dockerProbeImage)
	run := probe(ctx, nil, "docker", "run", "--rm", "--privileged", "--pull=never", "--network=none", dockerProbeImage, dockerProbeExec)
	if run.Err != nil {
		run.Err = fmt.Errorf("docker run --privileged: %w", run.Err)
	}
	return run
}

// probe runs one engine command with a time limit and keeps its answer.
func probe(ctx context.Context, stdin io.Reader, name string, args ...string) Probe {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdin = stdin
	out, err := cmd.CombinedOutput()
	p := Probe{Output: out, Err: err}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		p.ExitCode = exit.ExitCode()
	}
	return p
}
