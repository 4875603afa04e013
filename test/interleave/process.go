package interleave

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/crossplane-contrib/provider-coder/test/controlplane"
	"github.com/crossplane-contrib/provider-coder/test/crds"
)

// Flags is how the harness runs the provider binary: its production
// defaults but for the three knobs the scenario suite compresses too
// (test/e2e/main_test.go says why): the poll, Coder's request timeout and
// the key list's TTL below the poll.
var Flags = []string{"--debug", "--poll=3s", "--coder-timeout=2s", "--key-list-ttl=2s", "--health-probe-bind-address=0"}

// PollInterval is the provider's poll under Flags.
const PollInterval = 3 * time.Second

// A Process is the provider binary, run as its ServiceAccount, that the
// harness kills with SIGKILL and starts again.
type Process struct {
	bin, kubeconfig, logPath string
	metrics                  string
	cmd                      *exec.Cmd
	done                     chan struct{}
	// Starts counts the processes started.
	Starts int
}

// BuildProvider builds cmd/provider into dir, with the race detector when
// this test binary has it (the build reuses the test's compiled packages).
func BuildProvider(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "provider")
	args := []string{"build", "-o", bin}
	if raceEnabled {
		args = append(args, "-race")
	}
	cmd := exec.CommandContext(ctx, goTool(), append(args, "./cmd/provider")...)
	cmd.Dir = crds.RepoRoot()
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("cannot build the provider: %w\n%s", err, out)
	}
	return bin, nil
}

func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(os.Getenv("GOROOT"), "bin", "go")
}

// NewProcess prepares the provider binary bin to run as cfg's identity,
// logging to dir/provider.log.
func NewProcess(bin, dir string, cfg *rest.Config) (*Process, error) {
	kc := clientcmdapi.NewConfig()
	kc.Clusters["local"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["provider"] = &clientcmdapi.AuthInfo{ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData}
	kc.Contexts["local"] = &clientcmdapi.Context{Cluster: "local", AuthInfo: "provider"}
	kc.CurrentContext = "local"
	path := filepath.Join(dir, "provider.kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		return nil, err
	}
	return &Process{bin: bin, kubeconfig: path, logPath: filepath.Join(dir, "provider.log")}, nil
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
	port, err := freePort()
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
	cmd := exec.Command(p.bin, append(Flags, "--metrics-bind-address="+p.metrics)...)
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
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if !p.Running() {
			return fmt.Errorf("the provider exited at start; see %s", p.logPath)
		}
		if _, err := p.Scrape(ctx); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
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

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port, nil
}
