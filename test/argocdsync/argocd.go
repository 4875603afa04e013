//go:build unix

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

// Package argocdsync runs Argo CD's own application controller and repo
// server (v3.6.1, built by cluster/local/build-argocd.sh) against the local
// control plane, with Redis from Debian's redis-server package and a local
// Git repository, and syncs examples/argocd with them while the provider
// runs against the fake Coder. See README.md.
package argocdsync

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/crossplane-contrib/provider-coder/test/framework/controlplane"
	"github.com/crossplane-contrib/provider-coder/test/framework/crds"
)

// EnvRequire makes the test fail, rather than skip, when Argo CD's binary,
// redis-server or git is missing. `make argocd-sync` sets it.
const EnvRequire = "PROVIDER_CODER_REQUIRE_ARGOCD"

// EnvBinary names an Argo CD binary to run instead of the one
// cluster/local/build-argocd.sh built.
const EnvBinary = "PROVIDER_CODER_ARGOCD_BIN"

// Version is the Argo CD version of cluster/local/versions.env.
func Version() (string, error) {
	b, err := os.ReadFile(filepath.Join(crds.RepoRoot(), "cluster", "local", "versions.env"))
	if err != nil {
		return "", err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "ARGOCD_VERSION="); ok {
			return v, nil
		}
	}
	return "", errors.New("cluster/local/versions.env has no ARGOCD_VERSION")
}

// Binary returns the path of the Argo CD binary that
// cluster/local/build-argocd.sh built (or EnvBinary), or an error saying how
// to build it.
func Binary() (string, error) {
	if bin := os.Getenv(EnvBinary); bin != "" {
		if fi, err := os.Stat(bin); err != nil || fi.Mode().Perm()&0o111 == 0 {
			return "", fmt.Errorf("%s=%s is no executable", EnvBinary, bin)
		}
		return bin, nil
	}
	out, err := exec.Command(filepath.Join(crds.RepoRoot(), "cluster", "local", "build-argocd.sh"), "--print-path").Output()
	if err != nil {
		return "", fmt.Errorf("cluster/local/build-argocd.sh --print-path: %w", err)
	}
	bin := strings.TrimSpace(string(out))
	if fi, err := os.Stat(bin); err != nil || fi.Mode().Perm()&0o111 == 0 {
		return "", fmt.Errorf("no Argo CD binary at %s; run `make argocd` (cluster/local/build-argocd.sh) to build it", bin)
	}
	return bin, nil
}

// Tools returns the paths of redis-server and git, which
// hack/install-redis.sh installs from Debian's packages.
func Tools() (redis, git string, err error) {
	if redis, err = exec.LookPath("redis-server"); err != nil {
		return "", "", fmt.Errorf("no redis-server: run `make redis` (hack/install-redis.sh): %w", err)
	}
	if git, err = exec.LookPath("git"); err != nil {
		return "", "", fmt.Errorf("no git: run `make redis` (hack/install-redis.sh): %w", err)
	}
	return redis, git, nil
}

// ModuleDir is the source of the Argo CD module the binary is built from
// (test/argocd/argocdrun's go.mod), in the module cache: its CRDs are in
// manifests/crds, the scripts its image adds to the binary in hack.
func ModuleDir(ctx context.Context, version string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", "github.com/argoproj/argo-cd/v3@"+version)
	cmd.Dir = filepath.Join(crds.RepoRoot(), "test", "argocd", "argocdrun")
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOTOOLCHAIN=auto")
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", fmt.Errorf("go mod download github.com/argoproj/argo-cd/v3@%s: %w: %s", version, err, ee.Stderr)
		}
		return "", err
	}
	var m struct{ Dir string }
	if err := json.Unmarshal(out, &m); err != nil {
		return "", fmt.Errorf("go mod download -json: %w", err)
	}
	if m.Dir == "" {
		return "", errors.New("go mod download -json gave no Dir")
	}
	return m.Dir, nil
}

// InstallScripts copies the scripts that Argo CD's image puts in
// /usr/local/bin beside the binary (its Dockerfile: hack/gpg-wrapper.sh and
// hack/git-verify-wrapper.sh, which the repo server runs for every
// revision) from the module's source into dir.
func InstallScripts(moduleDir, dir string) error {
	for _, name := range []string{"gpg-wrapper.sh", "git-verify-wrapper.sh"} {
		b, err := os.ReadFile(filepath.Join(moduleDir, "hack", name))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o755); err != nil { //nolint:gosec // a script to run
			return err
		}
	}
	return nil
}

// A Process is one component (redis-server, a part of Argo CD) run in a
// process group of its own, logging to a file.
type Process struct {
	Name, LogPath string
	cmd           *exec.Cmd
	done          chan struct{}
}

// Start starts bin with args and env added to this process's environment.
func Start(name, bin, logDir string, env []string, args ...string) (*Process, error) {
	p := &Process{Name: name, LogPath: filepath.Join(logDir, name+".log"), done: make(chan struct{})}
	log, err := os.OpenFile(p.LogPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, err
	}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stdout, p.cmd.Stderr = log, log
	p.cmd.SysProcAttr = controlplane.SysProcAttr()
	if err := p.cmd.Start(); err != nil {
		_ = log.Close()
		return nil, fmt.Errorf("cannot start %s: %w", name, err)
	}
	go func() {
		_ = p.cmd.Wait()
		_ = log.Close()
		close(p.done)
	}()
	return p, nil
}

// Exited reports whether the process has exited.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Stop sends SIGTERM to the process group and SIGKILL if it has not exited
// after grace.
func (p *Process) Stop(grace time.Duration) {
	if p.Exited() {
		return
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	}
}

// Tail is the last n lines of the process's log.
func (p *Process) Tail(n int) string {
	f, err := os.Open(p.LogPath)
	if err != nil {
		return err.Error()
	}
	defer func() { _ = f.Close() }()
	var lines []string
	s := bufio.NewScanner(f)
	s.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	for s.Scan() {
		lines = append(lines, s.Text())
		if len(lines) > n {
			lines = lines[1:]
		}
	}
	return strings.Join(lines, "\n")
}

// WaitUntil polls ready until it is true, the process exits or timeout.
func (p *Process) WaitUntil(ctx context.Context, timeout time.Duration, ready func(context.Context) bool) error {
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		if p.Exited() {
			return false, fmt.Errorf("%s exited: %s", p.Name, p.Tail(20))
		}
		return ready(ctx), nil
	})
	if err != nil {
		return fmt.Errorf("%s is not ready: %w", p.Name, err)
	}
	return nil
}

// RedisPing reports whether a Redis server answers PING at addr.
func RedisPing(ctx context.Context, addr string) bool {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return false
	}
	defer func() { _ = c.Close() }()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return false
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && strings.HasPrefix(line, "+PONG")
}

// Listening reports whether something accepts TCP connections at addr.
func Listening(ctx context.Context, addr string) bool {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return false
	}
	_ = c.Close()
	return true
}

// HTTPOK reports whether GET url answers 200.
func HTTPOK(ctx context.Context, url string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	_ = resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// A Redactor replaces secrets in text that a test prints.
type Redactor struct {
	mu      sync.Mutex
	secrets []string
}

// Add adds secrets to redact.
func (r *Redactor) Add(s ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, v := range s {
		if v != "" {
			r.secrets = append(r.secrets, v)
		}
	}
}

// Redact returns s with every secret replaced.
func (r *Redactor) Redact(s string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, v := range r.secrets {
		s = strings.ReplaceAll(s, v, "<redacted>")
	}
	return s
}
