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
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

const testID = "73312b0cb86eec90e52aa29fcfd5f1ee0229007b034c43d0a91cc837c5bc234d"

func TestAContainerIDIsContainerdsOwn(t *testing.T) {
	if id, err := ContainerID("containerd://" + testID); err != nil || id != testID {
		t.Errorf("ContainerID = %q, %v", id, err)
	}
	for _, bad := range []string{testID, "docker://" + testID, "containerd://abc", "containerd://" + testID + "; rm -rf /"} {
		if _, err := ContainerID(bad); err == nil {
			t.Errorf("ContainerID(%q) accepted it", bad)
		}
	}
}

// scope makes the cgroup directory of testID under root, as kubelet's
// systemd driver names it on cgroup v1 (memory hierarchy) or v2.
func scope(t *testing.T, v1 bool, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "kubelet.slice", "kubelet-kubepods.slice", "cri-containerd-"+testID+".scope")
	if v1 {
		dir = filepath.Join(root, "memory", "kubelet.slice", "cri-containerd-"+testID+".scope")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func sh(t *testing.T, script string) (string, error) {
	t.Helper()
	out, err := exec.Command("sh", "-c", script).Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		err = fmt.Errorf("%w: %s", err, ee.Stderr)
	}
	return strings.TrimSpace(string(out)), err
}

func TestTheMemoryScriptReadsTheContainersPeakOnCgroupV1AndV2(t *testing.T) {
	for _, tc := range []struct {
		v1    bool
		files map[string]string
	}{
		{true, map[string]string{"memory.max_usage_in_bytes": "536870912\n", "memory.usage_in_bytes": "268435456\n"}},
		{false, map[string]string{"memory.peak": "536870912\n", "memory.current": "268435456\n"}},
	} {
		out, err := sh(t, memoryScript(scope(t, tc.v1, tc.files), testID))
		if err != nil {
			t.Fatalf("v1 %t: %v", tc.v1, err)
		}
		peak, now, err := ParseMemory(out)
		if err != nil || peak != 512<<20 || now != 256<<20 {
			t.Errorf("v1 %t: ParseMemory(%q) = %d, %d, %v; want 512 MiB and 256 MiB", tc.v1, out, peak, now, err)
		}
	}
	if _, err := sh(t, memoryScript(t.TempDir(), testID)); err == nil || !strings.Contains(err.Error(), "no cgroup of container") {
		t.Errorf("a container without a cgroup: %v, want it named", err)
	}
}

// The kill script kills every process of the container's cgroup with
// SIGKILL: here a sleep whose pid the fake cgroup lists.
func TestTheKillScriptKillsTheContainersProcessesWithSIGKILL(t *testing.T) {
	sleep := exec.Command("sleep", "60")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	root := scope(t, true, map[string]string{"cgroup.procs": fmt.Sprintln(sleep.Process.Pid)})
	out, err := sh(t, killScript(root, testID))
	if err != nil {
		t.Fatal(err)
	}
	if out != fmt.Sprint(sleep.Process.Pid) {
		t.Errorf("the script says it killed %q, want %d", out, sleep.Process.Pid)
	}
	err = sleep.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Errorf("sleep ended with %v, want SIGKILL", err)
	}
	if _, err := sh(t, killScript(scope(t, true, map[string]string{"cgroup.procs": ""}), testID)); err == nil {
		t.Error("a container without a process: no error")
	}
}
