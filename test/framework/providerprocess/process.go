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

// Package providerprocess runs the provider binary as a process of its own,
// as a ServiceAccount, the way a package runtime runs it: the harness kills
// it with SIGKILL, starts it again, reads its logs and scrapes its metrics.
// The interleavings and the scenarios under the real Crossplane use it.
package providerprocess

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/crossplane-contrib/provider-coder/test/framework/controlplane"
	"github.com/crossplane-contrib/provider-coder/test/framework/ports"
)

// A Process is the provider binary, run as its ServiceAccount, that the
// harness kills with SIGKILL and starts again.
type Process struct {
	bin, kubeconfig, logPath string
	flags                    []string
	metrics                  string
	cmd                      *exec.Cmd
	done                     chan struct{}
	// Starts counts the processes started.
	Starts int
}

// New prepares the provider binary bin to run with flags as cfg's identity,
// logging to dir/provider.log. Start adds --metrics-bind-address.
func New(bin, dir string, cfg *rest.Config, flags ...string) (*Process, error) {
	kc := clientcmdapi.NewConfig()
	kc.Clusters["local"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["provider"] = &clientcmdapi.AuthInfo{ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData}
	kc.Contexts["local"] = &clientcmdapi.Context{Cluster: "local", AuthInfo: "provider"}
	kc.CurrentContext = "local"
	path := filepath.Join(dir, "provider.kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		return nil, err
	}
	return &Process{bin: bin, kubeconfig: path, logPath: filepath.Join(dir, "provider.log"), flags: flags}, nil
}

// Running reports whether a provider process runs.
func (p *Process) Running() bool {
	if p.cmd == nil {
		return false
	}
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// Start starts a provider process and waits until it serves metrics.
func (p *Process) Start(ctx context.Context) error {
	if p.Running() {
		return nil
	}
	port, err := ports.One()
	if err != nil {
		return err
	}
	p.metrics = fmt.Sprintf("127.0.0.1:%d", port)
	log, err := os.OpenFile(p.logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	p.Starts++
	fmt.Fprintf(log, "=== provider process %d starts at %s\n", p.Starts, time.Now().Format(time.RFC3339Nano))
	cmd := exec.Command(p.bin, append(append([]string(nil), p.flags...), "--metrics-bind-address="+p.metrics)...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+p.kubeconfig)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = controlplane.SysProcAttr()
	if err := cmd.Start(); err != nil {
		_ = log.Close()
		return fmt.Errorf("cannot start the provider: %w", err)
	}
	p.cmd, p.done = cmd, make(chan struct{})
	go func(done chan struct{}) {
		_ = cmd.Wait()
		_ = log.Close()
		close(done)
	}(p.done)
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		if !p.Running() {
			return false, fmt.Errorf("the provider exited at start; see %s", p.logPath)
		}
		_, err := p.Scrape(ctx)
		return err == nil, nil
	})
	if !wait.Interrupted(err) || ctx.Err() != nil {
		return err
	}
	return fmt.Errorf("the provider serves no metrics after 30s; see %s", p.logPath)
}

// Kill kills the provider with SIGKILL: no deferred function, no last write.
func (p *Process) Kill() {
	if !p.Running() {
		return
	}
	_ = p.cmd.Process.Kill()
	<-p.done
}

// Stop ends the provider as Kill does; the harness has no use for a
// graceful stop.
func (p *Process) Stop() { p.Kill() }

// Logs is everything every provider process logged.
func (p *Process) Logs() string {
	b, _ := os.ReadFile(p.logPath)
	return string(b)
}

// LogPath is where the provider logs.
func (p *Process) LogPath() string { return p.logPath }

// A Scrape is the provider's metrics at one moment.
type Scrape struct {
	Text     string
	families map[string]*dto.MetricFamily
}

// Scrape reads the running provider's metrics.
func (p *Process) Scrape(ctx context.Context) (Scrape, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+p.metrics+"/metrics", nil)
	if err != nil {
		return Scrape{}, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return Scrape{}, err
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return Scrape{}, err
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(strings.NewReader(string(b)))
	if err != nil {
		return Scrape{}, err
	}
	return Scrape{Text: string(b), families: fams}, nil
}

// Sum adds every sample of a counter, or the sample counts of a histogram.
func (s Scrape) Sum(name string) float64 {
	f, ok := s.families[name]
	if !ok {
		return 0
	}
	total := 0.0
	for _, m := range f.GetMetric() {
		switch {
		case m.GetCounter() != nil:
			total += m.GetCounter().GetValue()
		case m.GetHistogram() != nil:
			total += float64(m.GetHistogram().GetSampleCount())
		case m.GetGauge() != nil:
			total += m.GetGauge().GetValue()
		}
	}
	return total
}

// Families are the scrape's metric families, in no order.
func (s Scrape) Families() []*dto.MetricFamily {
	out := make([]*dto.MetricFamily, 0, len(s.families))
	for _, f := range s.families {
		out = append(out, f)
	}
	return out
}
