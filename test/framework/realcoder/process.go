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

package realcoder

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/crossplane-contrib/provider-coder/test/framework/controlplane"
)

// tailSize is how much recent output a process keeps to explain a failure.
const tailSize = 8 << 10

// process is a running server (postgres or coder) in its own process group.
type process struct {
	name string
	cmd  *exec.Cmd
	tail *controlplane.Tail
	log  *os.File
	done chan struct{} // closed once the process exited and err is set
	err  error
}

// startProcess starts cmd, its output appended to logPath and kept in tail.
// The process gets its own group, so stop reaches everything it started,
// and is killed if the test binary dies without calling stop.
func startProcess(name string, cmd *exec.Cmd, logPath string) (*process, error) {
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("cannot create %s log: %w", name, err)
	}
	p := &process{name: name, cmd: cmd, tail: &controlplane.Tail{Size: tailSize}, log: f, done: make(chan struct{})}
	out := io.MultiWriter(f, p.tail)
	cmd.Stdout, cmd.Stderr = out, out
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("cannot start %s: %w", name, err)
	}
	go func() {
		p.err = cmd.Wait()
		_ = f.Close()
		close(p.done)
	}()
	return p, nil
}

// exited describes why the process ended, with its last output.
func (p *process) exited() error {
	status := "exited"
	if p.err != nil {
		status = p.err.Error()
	}
	return fmt.Errorf("%s exited unexpectedly (%s); last output:\n%s", p.name, status, p.tail.String())
}

// ended is exited's error once the process has ended, nil while it runs,
// so a wait for the process to be ready ends when the process does.
func (p *process) ended() error {
	select {
	case <-p.done:
		return p.exited()
	default:
		return nil
	}
}

// stop sends sig to the process group and SIGKILL after grace. A process
// that already exited is not an error.
func (p *process) stop(sig syscall.Signal, grace time.Duration) {
	select {
	case <-p.done:
		return
	default:
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, sig)
	select {
	case <-p.done:
		return
	case <-time.After(grace):
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.done
}
