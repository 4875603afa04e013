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

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-coder/internal/provider"
	"github.com/crossplane-contrib/provider-coder/test/framework/controlplane"
	"github.com/crossplane-contrib/provider-coder/test/framework/crds"
	"github.com/crossplane-contrib/provider-coder/test/framework/packagerbac"
	"github.com/crossplane-contrib/provider-coder/test/framework/ports"
	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"
)

// auditPolicy logs every write of the provider's identity, and nothing
// else: the benchmark counts Kubernetes writes per resource from it.
var auditPolicy = fmt.Sprintf(`apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: Metadata
    users: [%q]
    verbs: [create, update, patch, delete, deletecollection]
  - level: None
`, packagerbac.User())

// A bed is the control plane, the benchmark's own clients and the built
// provider binary.
type bed struct {
	dir         string
	cp          *controlplane.ControlPlane
	kube        client.Client
	dyn         dynamic.Interface
	audit       string
	providerBin string
	kubeconfig  string
	// profile is where the scale runs save their providers' CPU and heap
	// profiles; empty saves none.
	profile string
}

func startBed(ctx context.Context) (_ *bed, err error) {
	dir, err := os.MkdirTemp("", "provider-coder-bench-")
	if err != nil {
		return nil, err
	}
	b := &bed{dir: dir, audit: filepath.Join(dir, "audit.log")}
	defer func() {
		if err != nil {
			b.stop()
		}
	}()
	policy := filepath.Join(dir, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(auditPolicy), 0o600); err != nil {
		return nil, err
	}
	// The provider is built as users run it: its own binary, no race
	// detector, in its own process, so its memory and CPU are its own.
	b.providerBin = filepath.Join(dir, "provider")
	build := exec.CommandContext(ctx, "go", "build", "-o", b.providerBin, "./cmd/provider")
	build.Dir = crds.RepoRoot()
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("cannot build the provider: %w\n%s", err, out)
	}
	binDir, err := controlplane.BinDir()
	if err != nil {
		return nil, err
	}
	b.cp, err = controlplane.Start(ctx, controlplane.Options{BinDir: binDir, APIServerArgs: []string{
		"--audit-policy-file=" + policy,
		"--audit-log-path=" + b.audit,
		"--audit-log-format=json",
		"--audit-log-maxsize=0",
	}})
	if err != nil {
		return nil, err
	}
	// The benchmark's own client is not throttled: it must not be what
	// is measured.
	cfg := rest.CopyConfig(b.cp.Config)
	cfg.QPS, cfg.Burst = -1, 0
	s, err := provider.Scheme()
	if err != nil {
		return nil, err
	}
	if b.kube, err = client.New(cfg, client.Options{Scheme: s}); err != nil {
		return nil, err
	}
	if b.dyn, err = dynamic.NewForConfig(cfg); err != nil {
		return nil, err
	}
	if err := crds.Install(ctx, b.cp.Config); err != nil {
		return nil, err
	}
	if err := testenv.GrantPackageRBAC(ctx, b.kube); err != nil {
		return nil, err
	}
	b.kubeconfig = filepath.Join(dir, "provider.kubeconfig")
	return b, writeKubeconfig(b.kubeconfig, b.cp.UserConfig(packagerbac.User(), packagerbac.Groups()...))
}

func (b *bed) stop() {
	if b.cp != nil {
		_ = b.cp.Stop()
	}
	if os.Getenv("BENCH_KEEP") != "" {
		fmt.Println("kept", b.dir)
		return
	}
	_ = os.RemoveAll(b.dir)
}

// writeKubeconfig writes cfg (a client certificate) as a kubeconfig file.
func writeKubeconfig(path string, cfg *rest.Config) error {
	kc := clientcmdapi.NewConfig()
	kc.Clusters["bench"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["provider"] = &clientcmdapi.AuthInfo{ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData}
	kc.Contexts["bench"] = &clientcmdapi.Context{Cluster: "bench", AuthInfo: "provider"}
	kc.CurrentContext = "bench"
	return clientcmd.WriteToFile(*kc, path)
}

// A proc is the provider binary running with its production defaults
// but the flags given.
type proc struct {
	cmd     *exec.Cmd
	metrics string
	log     string
	// pprof is the URL of its /debug/pprof, when the bed profiles.
	pprof string
	// done is closed when the process has exited, with exit its error.
	done chan struct{}
	exit error
}

func (b *bed) startProvider(ctx context.Context, name string, flags ...string) (*proc, error) {
	port, err := ports.One()
	if err != nil {
		return nil, err
	}
	p := &proc{metrics: "http://127.0.0.1:" + strconv.Itoa(port) + "/metrics", log: filepath.Join(b.dir, name+".log"), done: make(chan struct{})}
	out, err := os.Create(p.log)
	if err != nil {
		return nil, err
	}
	args := append([]string{"--metrics-bind-address=127.0.0.1:" + strconv.Itoa(port), "--health-probe-bind-address=0"}, flags...)
	if b.profile != "" {
		pport, err := ports.One()
		if err != nil {
			return nil, err
		}
		p.pprof = "http://127.0.0.1:" + strconv.Itoa(pport) + "/debug/pprof"
		args = append(args, "--pprof-bind-address=127.0.0.1:"+strconv.Itoa(pport))
	}
	p.cmd = exec.Command(b.providerBin, args...)
	p.cmd.Env = append(os.Environ(), "KUBECONFIG="+b.kubeconfig)
	p.cmd.Stdout, p.cmd.Stderr = out, out
	if err := p.cmd.Start(); err != nil {
		_ = out.Close()
		return nil, err
	}
	go func() {
		p.exit = p.cmd.Wait()
		_ = out.Close()
		close(p.done)
	}()
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		select {
		case <-p.done:
			return false, fmt.Errorf("provider exited: %w; its log is %s", p.exit, p.log)
		default:
		}
		_, err := scrape(ctx, p.metrics)
		return err == nil, nil
	})
	if err != nil {
		p.stop()
		return nil, err
	}
	return p, nil
}

func (p *proc) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// usage is the provider process's CPU seconds and resident memory.
type usage struct {
	CPU     float64 // user + system seconds
	RSS     float64 // MiB now
	PeakRSS float64 // MiB, the high-water mark
}

func (p *proc) usage() (usage, error) {
	pid := p.cmd.Process.Pid
	_, cpu, err := procStat(strconv.Itoa(pid))
	if err != nil {
		return usage{}, err
	}
	u := usage{CPU: cpu}
	s, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return usage{}, err
	}
	defer s.Close()
	sc := bufio.NewScanner(s)
	for sc.Scan() {
		var kb float64
		switch line := sc.Text(); {
		case strings.HasPrefix(line, "VmRSS:"):
			_, _ = fmt.Sscanf(line, "VmRSS: %f kB", &kb)
			u.RSS = kb / 1024
		case strings.HasPrefix(line, "VmHWM:"):
			_, _ = fmt.Sscanf(line, "VmHWM: %f kB", &kb)
			u.PeakRSS = kb / 1024
		}
	}
	return u, sc.Err()
}

// writes counts the provider's Kubernetes writes in the audit log from
// offset on, by verb and resource ("aigatewaykeys/status"). With ns set,
// writes to objects of other namespaces are left out: the provider tears
// down an earlier run's namespace meanwhile (its ProviderConfig's hold,
// its credentials Secret's release, whose optimistic lock may be refused
// by design), which is not this run's lifecycle.
func (b *bed) writes(offset int64, ns string) (map[string]int, error) {
	f, err := os.Open(b.audit)
	if err != nil {
		if os.IsNotExist(err) {
			return map[string]int{}, nil
		}
		return nil, err
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return nil, err
	}
	out := map[string]int{}
	r := bufio.NewReader(f)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			// A partial last line is left out.
			break
		}
		var ev struct {
			Verb      string `json:"verb"`
			ObjectRef struct {
				Resource    string `json:"resource"`
				Subresource string `json:"subresource"`
				Name        string `json:"name"`
				Namespace   string `json:"namespace"`
			} `json:"objectRef"`
			ResponseStatus struct {
				Code int `json:"code"`
			} `json:"responseStatus"`
		}
		if json.Unmarshal(line, &ev) != nil || (ns != "" && ev.ObjectRef.Namespace != "" && ev.ObjectRef.Namespace != ns) {
			continue
		}
		res := ev.ObjectRef.Resource
		if ev.ObjectRef.Subresource != "" {
			res += "/" + ev.ObjectRef.Subresource
		}
		switch c := ev.ResponseStatus.Code; {
		case c == 409:
			// A write refused as stale names its object: which copy
			// was stale is the question it raises.
			res += fmt.Sprintf(" %s (%d)", ev.ObjectRef.Name, c)
		case c >= 400:
			// Other refused writes count apart.
			res += fmt.Sprintf(" (%d)", c)
		}
		out[ev.Verb+" "+res]++
	}
	return out, nil
}

// httpGet is a GET bounded by ctx.
func httpGet(ctx context.Context, url string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	return http.DefaultClient.Do(req)
}

// cpuByProcess is the CPU seconds every process of the test bed has used so
// far, by command: where a run's time goes on a machine of few cores.
func cpuByProcess() map[string]float64 {
	out := map[string]float64{}
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		if _, err := strconv.Atoi(d.Name()); err != nil {
			continue
		}
		comm, cpu, err := procStat(d.Name())
		if err != nil {
			continue
		}
		switch {
		case comm == "etcd", comm == "kube-apiserver", comm == "kube-controller", comm == "coder", comm == "provider", comm == "bench":
		case strings.HasPrefix(comm, "postgres"):
			comm = "postgres"
		default:
			continue
		}
		out[comm] += cpu
	}
	return out
}

// procStat is the command name and the user + system CPU seconds of the
// process pid, from /proc/<pid>/stat.
func procStat(pid string) (string, float64, error) {
	stat, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return "", 0, err
	}
	s := string(stat)
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return "", 0, fmt.Errorf("/proc/%s/stat: no command name", pid)
	}
	// The fields after the command name, which is in parentheses.
	f := strings.Fields(s[end+2:])
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return s[open+1 : end], (ut + st) / 100, nil // USER_HZ is 100 on Linux
}
