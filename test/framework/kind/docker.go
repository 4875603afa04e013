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
	"os/exec"
	"strings"
	"time"
)

// NoDockerError says why the kind e2e cannot run here.
type NoDockerError struct{ Reason string }

func (e *NoDockerError) Error() string { return "kind e2e needs Docker: " + e.Reason }

// DockerDecision decides from the outcome of `docker info` whether a usable
// Docker engine is there. A client without a reachable engine exits non-zero
// (and prints the client section only); a missing binary fails to start.
func DockerDecision(output []byte, err error) error {
	out := strings.TrimSpace(string(output))
	var notFound *exec.Error
	switch {
	case errors.As(err, &notFound):
		return &NoDockerError{Reason: "docker info: " + notFound.Err.Error() + " (is Docker installed?)"}
	case err != nil:
		return &NoDockerError{Reason: fmt.Sprintf("docker info: %v: %s", err, lastLine(out))}
	case !strings.Contains(out, "Server Version"):
		return &NoDockerError{Reason: "docker info: no server section (is the Docker engine running?): " + lastLine(out)}
	}
	return nil
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// CheckDocker runs `docker info` and decides.
func CheckDocker(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "docker", "info").CombinedOutput()
	return DockerDecision(out, err)
}
