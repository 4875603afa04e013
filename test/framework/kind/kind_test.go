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
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-coder/test/framework/controlplane"
	"github.com/crossplane-contrib/provider-coder/test/framework/crds"
)

func TestTheEngineIsDockerWhenItRunsPrivilegedContainersElseRootfulPodman(t *testing.T) {
	dockerUp := Probe{Output: []byte("Client:\n Version: 27.3.1\nServer:\n Containers: 0\n Server Version: 27.3.1\n")}
	dockerDown := Probe{
		Output: []byte("Client:\n Version: 27.3.1\n\nCannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?\n"),
		Err:    errors.New("exit status 1"),
	}
	noDocker := Probe{Err: &exec.Error{Name: "docker", Err: exec.ErrNotFound}}
	podmanRootful := Probe{Output: []byte("false\n")}
	podmanRootless := Probe{Output: []byte("true\n")}
	noPodman := Probe{Err: &exec.Error{Name: "podman", Err: exec.ErrNotFound}}
	// What Docker 20.10 (Debian 12's docker.io) and runc 1.1 answered on a
	// host whose capability bounding set lacks CAP_SYS_RESOURCE, and where
	// the same probe is not privileged.
	privileged := Probe{
		Output: []byte("docker: Error response from daemon: failed to create shim task: OCI runtime create failed: runc create failed: " +
			"unable to start container process: exec: \"" + dockerProbeExec + "\": stat " + dockerProbeExec + ": no such file or directory: unknown\n" +
			"\nRun 'docker run --help' for more information\n"),
		Err: errors.New("docker run --privileged: exit status 127"), ExitCode: 127,
	}
	capsRefused := Probe{
		Output: []byte("docker: Error response from daemon: failed to create shim task: OCI runtime create failed: runc create failed: " +
			"unable to start container process: unable to apply caps: operation not permitted: unknown\n" +
			"\nRun 'docker run --help' for more information\n"),
		Err: errors.New("docker run --privileged: exit status 125"), ExitCode: 125,
	}
	// Exit status 127 for a file the runtime needs, not the probe's command.
	otherFileMissing := Probe{
		Output: []byte("docker: Error response from daemon: error gathering device information while adding custom device \"/dev/kvm\": no such file or directory.\n"),
		Err:    errors.New("docker run --privileged: exit status 127"), ExitCode: 127,
	}
	cases := map[string]struct {
		provider                   string
		docker, privileged, podman Probe
		want                       Engine
		reason                     []string // substrings of the NoEngineError's reason
	}{
		"DockerFirst": {docker: dockerUp, privileged: privileged, podman: podmanRootful, want: Docker},
		"PodmanWhenDockerRefusesPrivileged": {
			docker: dockerUp, privileged: capsRefused, podman: podmanRootful, want: Podman,
		},
		"DockerRefusesPrivilegedWithoutPodman": {
			docker: dockerUp, privileged: capsRefused, podman: noPodman,
			reason: []string{
				"docker cannot run a privileged container (kind's node is one): docker run --privileged: exit status 125: " +
					"docker: Error response from daemon: failed to create shim task: OCI runtime create failed: runc create failed: " +
					"unable to start container process: unable to apply caps: operation not permitted: unknown; podman info: executable file not found",
			},
		},
		"AnotherMissingFileIsNotTheProbe": {
			docker: dockerUp, privileged: otherFileMissing, podman: noPodman,
			reason: []string{"docker run --privileged: exit status 127: docker: Error response from daemon: error gathering device information"},
		},
		"ProbeImageNotImported": {
			docker: dockerUp, podman: noPodman,
			privileged: Probe{
				Output: []byte("Error response from daemon: write /var/lib/docker/tmp/x: no space left on device\n"),
				Err:    errors.New("docker import (the probe's empty image): exit status 1"), ExitCode: 1,
			},
			reason: []string{"docker import (the probe's empty image): exit status 1: Error response from daemon: write /var/lib/docker/tmp/x: no space left on device"},
		},
		"AskedForDockerRefusingPrivileged": {
			provider: "docker", docker: dockerUp, privileged: capsRefused, podman: podmanRootful,
			reason: []string{"KIND_EXPERIMENTAL_PROVIDER=docker: docker cannot run a privileged container", "unable to apply caps: operation not permitted"},
		},
		"PodmanWithoutAnEngine": {docker: dockerDown, podman: podmanRootful, want: Podman},
		"PodmanWithoutDocker":   {docker: noDocker, podman: podmanRootful, want: Podman},
		"ClientSectionOnly": {
			docker: Probe{Output: []byte("Client:\n Version: 27.3.1\n")}, podman: noPodman,
			reason: []string{"no server section", "podman info: executable file not found", "hack/kind-podman-setup.sh"},
		},
		"Neither": {
			docker: dockerDown, podman: noPodman,
			reason: []string{"exit status 1: Cannot connect to the Docker daemon", "podman info: executable file not found"},
		},
		"NoDockerBinary": {
			docker: noDocker, podman: noPodman,
			reason: []string{"executable file not found in $PATH (is Docker installed?)"},
		},
		"RootlessPodman": {
			docker: dockerDown, podman: podmanRootless,
			reason: []string{"podman is rootless here"},
		},
		"PodmanBroken": {
			docker: dockerDown, podman: Probe{Output: []byte("Error: cannot connect\n"), Err: errors.New("exit status 125")},
			reason: []string{"podman info: exit status 125: Error: cannot connect"},
		},
		"AskedForPodman": {provider: "podman", docker: dockerUp, privileged: privileged, podman: podmanRootful, want: Podman},
		"AskedForDocker": {provider: "docker", docker: dockerUp, privileged: privileged, podman: podmanRootful, want: Docker},
		"AskedForDockerDown": {
			provider: "docker", docker: dockerDown, podman: podmanRootful,
			reason: []string{"KIND_EXPERIMENTAL_PROVIDER=docker: docker info: exit status 1"},
		},
		"AskedForPodmanRootless": {
			provider: "podman", docker: dockerUp, privileged: privileged, podman: podmanRootless,
			reason: []string{"KIND_EXPERIMENTAL_PROVIDER=podman: podman is rootless"},
		},
		"AskedForNerdctl": {
			provider: "nerdctl", docker: dockerUp, privileged: privileged, podman: podmanRootful,
			reason: []string{"KIND_EXPERIMENTAL_PROVIDER=nerdctl: want docker or podman"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := EngineDecision(tc.provider, Probes{Docker: tc.docker, DockerPrivileged: tc.privileged, Podman: tc.podman})
			if tc.reason == nil {
				if err != nil || got != tc.want {
					t.Fatalf("EngineDecision() = %q, %v, want %q", got, err, tc.want)
				}
				return
			}
			var ne *NoEngineError
			if !errors.As(err, &ne) {
				t.Fatalf("EngineDecision() = %q, %v, want a NoEngineError", got, err)
			}
			for _, r := range tc.reason {
				if !strings.Contains(ne.Reason, r) {
					t.Errorf("reason %q does not say %q", ne.Reason, r)
				}
			}
		})
	}
}

// TestMakeE2EWithoutAnEngineStopsBeforeDoingAnything runs the `make e2e`
// path as far as this machine allows: with neither Docker nor rootful
// Podman it must stop at once, having done nothing.
func TestMakeE2EWithoutAnEngineStopsBeforeDoingAnything(t *testing.T) {
	if e, err := CheckEngine(t.Context()); err == nil {
		t.Skipf("%s is available: `make e2e` runs the kind path; make test does not create clusters", e)
	}
	root := t.TempDir() // nothing to build here: any step past the check would fail
	var out bytes.Buffer
	err := Run(t.Context(), Options{Root: root, Arch: "amd64", Out: &out})
	var ne *NoEngineError
	if !errors.As(err, &ne) {
		t.Fatalf("Run() = %v, want a NoEngineError", err)
	}
	if entries, _ := os.ReadDir(root); len(entries) != 0 || out.Len() != 0 {
		t.Fatalf("Run() did something without an engine: %d entries in the root, output %q", len(entries), out.String())
	}
	t.Skip(err.Error())
}

// coderBinary is where BuildBinaryImage puts the fake Coder.
const coderBinary = "/usr/local/bin/fakecoder"

func TestFakeCoderImageRunsItsBinaryAsNonRootOnLinux(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	out := filepath.Join(t.TempDir(), "fakecoder.tar")
	if err := BuildCoderImage(crds.RepoRoot(), "amd64", out); err != nil {
		t.Fatal(err)
	}
	img, err := tarball.ImageFromPath(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Config.Entrypoint[0] != coderBinary || cfg.Config.User != "65532:65532" || cfg.OS != "linux" {
		t.Errorf("config = %+v, want entrypoint %s as 65532 on linux", cfg.Config, coderBinary)
	}
	if size := fileSize(t, img, coderBinary[1:]); size < 1<<20 {
		t.Errorf("%s is %d bytes, want a Go binary", coderBinary, size)
	}
}

func fileSize(t *testing.T, img v1.Image, name string) int64 {
	t.Helper()
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if err != nil {
			t.Fatalf("no %s in the image: %v", name, err)
		}
		if h.Name == name {
			return h.Size
		}
	}
}

// TestManifestsAreAcceptedByKubernetes applies everything `make e2e` creates
// in the cluster itself, to a real API server: Crossplane's rendered
// installation, the fake Coders and the registry. What the install guide
// applies, test/crossplane applies.
func TestManifestsAreAcceptedByKubernetes(t *testing.T) {
	cp := controlplane.StartOrSkip(t, controlplane.Options{})
	s := kruntime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	kube, err := client.New(cp.Config, client.Options{Scheme: s})
	if err != nil {
		t.Fatal(err)
	}
	version, err := CrossplaneVersion(crds.RepoRoot())
	if err != nil {
		t.Fatal(err)
	}
	xp, err := CrossplaneManifest(crds.RepoRoot(), version)
	if err != nil {
		t.Fatal(err)
	}
	objs := append(append([]client.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ProviderNamespace}}}, xp...), FakeCoders()...)
	objs = append(objs, Registry()...)
	r := &runner{kube: kube}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if err := r.apply(ctx, objs); err != nil {
		t.Fatal(err)
	}
	t.Logf("applied %d objects (%d from the Crossplane manifest)", len(objs), len(xp))
}

// TestTheDockerProbeNamesTheEnginesOwnReason runs the privileged probe
// where a Docker engine answers: a refusal must carry the daemon's words,
// and the probe's image must not stay behind.
func TestTheDockerProbeNamesTheEnginesOwnReason(t *testing.T) {
	if r := dockerInfoReason(probe(t.Context(), nil, "docker", "info")); r != "" {
		t.Skip(r)
	}
	p := probeDockerPrivileged(t.Context())
	if exists := probe(t.Context(), nil, "docker", "image", "inspect", dockerProbeImage); exists.Err == nil {
		t.Errorf("the probe left %s behind", dockerProbeImage)
	}
	reason := privilegedReason(p)
	if reason == "" {
		t.Skip("this Docker engine runs privileged containers")
	}
	said := daemonError(string(p.Output))
	if said == "" || !strings.HasSuffix(reason, ": "+said) {
		t.Fatalf("reason %q does not end with what Docker said (%q); the probe's output:\n%s", reason, said, p.Output)
	}
	t.Log(reason)
}
