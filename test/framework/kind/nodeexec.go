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
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
)

// NodeContainer is the engine's container of the cluster's one node. The
// node's PID namespace holds every pod's processes and its cgroup file
// system every container's cgroup, named after the container's containerd
// id (cri-containerd-<id>.scope, kubelet's systemd driver).
const NodeContainer = ClusterName + "-control-plane"

var containerdID = regexp.MustCompile(`^[0-9a-f]{64}$`)

// ContainerID is the containerd id in a pod's container status
// (containerd://<id>).
func ContainerID(status string) (string, error) {
	id, ok := strings.CutPrefix(status, "containerd://")
	if !ok || !containerdID.MatchString(id) {
		return "", fmt.Errorf("container id %q is not containerd://<64 hex digits>", status)
	}
	return id, nil
}

// cgroupDir finds the container's memory cgroup: cgroup v1's memory
// hierarchy, else the unified one.
func cgroupDir(root, id string) string {
	return `d=$(find ` + root + `/memory -type d -name 'cri-containerd-` + id + `.scope' 2>/dev/null | head -n1); ` +
		`[ -n "$d" ] || d=$(find ` + root + ` -type d -name 'cri-containerd-` + id + `.scope' 2>/dev/null | head -n1); ` +
		`[ -n "$d" ] || { echo "no cgroup of container ` + id + `" >&2; exit 1; }; `
}

// KillScript sends SIGKILL to every process of the container, as `kill -9`
// in it would (the provider's image has no shell): kubelet then restarts
// the container in the same pod. It prints the pids it killed.
func KillScript(id string) string { return killScript(cgroupRoot, id) }

// cgroupRoot is where the node mounts the cgroup file systems.
const cgroupRoot = "/sys/fs/cgroup"

func killScript(root, id string) string {
	return cgroupDir(root, id) + `pids=$(cat "$d/cgroup.procs"); [ -n "$pids" ] || { echo "container ` + id + ` has no process" >&2; exit 1; }; ` +
		`kill -9 $pids && echo $pids`
}

// MemoryScript prints the container's memory as its cgroup counts it (what
// the OOM killer compares with the limit): the peak since the container
// started and the usage now, in bytes, on cgroup v1 or v2.
func MemoryScript(id string) string { return memoryScript(cgroupRoot, id) }

func memoryScript(root, id string) string {
	return cgroupDir(root, id) + `if [ -f "$d/memory.max_usage_in_bytes" ]; then ` +
		`echo "$(cat "$d/memory.max_usage_in_bytes") $(cat "$d/memory.usage_in_bytes")"; ` +
		`else echo "$(cat "$d/memory.peak") $(cat "$d/memory.current")"; fi`
}

// ParseMemory reads MemoryScript's output.
func ParseMemory(out string) (peak, now int64, err error) {
	f := strings.Fields(out)
	if len(f) != 2 {
		return 0, 0, fmt.Errorf("memory of the container: %q, want the peak and the usage", out)
	}
	if peak, err = strconv.ParseInt(f[0], 10, 64); err == nil {
		now, err = strconv.ParseInt(f[1], 10, 64)
	}
	return peak, now, err
}

// NodeEngine is the engine running the node, as the run chose it
// (EnvProvider, which make e2e passes to the scenarios).
func NodeEngine() (Engine, error) {
	switch e := Engine(os.Getenv(EnvProvider)); e {
	case Docker, Podman:
		return e, nil
	default:
		return "", fmt.Errorf("%s=%q: the scenarios need to know the engine of the node (docker or podman; make e2e sets it)", EnvProvider, e)
	}
}

// OnNode runs script with sh in the node's container.
func OnNode(ctx context.Context, script string) (string, error) {
	engine, err := NodeEngine()
	if err != nil {
		return "", err
	}
	var stdout, stderr strings.Builder
	cmd := exec.CommandContext(ctx, string(engine), "exec", NodeContainer, "sh", "-c", script)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s exec %s: %w: %s", engine, NodeContainer, err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(stdout.String()), nil
}
