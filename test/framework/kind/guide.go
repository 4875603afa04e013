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
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-coder/test/framework/controlplane"
	"github.com/crossplane-contrib/provider-coder/test/framework/crossplane"
	"github.com/crossplane-contrib/provider-coder/test/framework/docblocks"
)

// The install guide as a user runs it: its package from `make publish` to
// a registry inside the cluster, installed by tag.
const (
	// PublishedAs is the registry and organisation the guide's package
	// reference names; the run replaces it with the cluster's registry.
	PublishedAs = "registry.example.com/platform"
	// GuideRelease is the release the guide installs.
	GuideRelease = "v0.1.0"

	RegistryImage     = "provider-coder.local/registry:e2e"
	RegistryNamespace = "registry"
	// RegistryNodePort is where the node serves the registry: pods reach
	// it at the node's address, and so does containerd, which pulls the
	// provider's image from it (RegistryHosts).
	RegistryNodePort = 30500
	registryPort     = 5000

	// functionsFile is the composition example's Function, which runs
	// before the guide does, as on a cluster that composes already.
	functionsFile = "examples/composition/functions.yaml"
	functionName  = "function-patch-and-transform"
	// functionImage is the stand-in's runtime (standinfunction).
	functionImage = "provider-coder.local/function-standin:e2e"

	// crossplaneValues is the file the guide's first step saves, with the
	// chart values its `helm upgrade` applies.
	crossplaneValues = "crossplane-restricted.yaml"
)

// RegistryHosts is containerd's hosts.toml for the registry at host: plain
// HTTP, which containerd speaks only to a registry it is told of.
func RegistryHosts(host string) string {
	return fmt.Sprintf("server = %q\n\n[host.%q]\n  capabilities = [\"pull\", \"resolve\"]\n", "http://"+host, "http://"+host)
}

// Registry deploys kindregistry behind RegistryNodePort.
func Registry() []client.Object {
	labels := map[string]string{"app.kubernetes.io/name": "registry"}
	return []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: RegistryNamespace}},
		&appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Namespace: RegistryNamespace, Name: "registry", Labels: labels},
			Spec: appsv1.DeploymentSpec{
				Replicas: ptr.To[int32](1),
				Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec: corev1.PodSpec{Containers: []corev1.Container{{
						Name:            "registry",
						Image:           RegistryImage,
						ImagePullPolicy: corev1.PullNever,
						Args:            []string{fmt.Sprintf("--listen=:%d", registryPort)},
						Ports:           []corev1.ContainerPort{{Name: "registry", ContainerPort: registryPort}},
						ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
							Path: "/v2/", Port: intstr.FromInt32(registryPort),
						}}},
					}}},
				},
			},
		},
		&corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Namespace: RegistryNamespace, Name: "registry", Labels: labels},
			Spec: corev1.ServiceSpec{
				Type:     corev1.ServiceTypeNodePort,
				Selector: labels,
				Ports: []corev1.ServicePort{{
					Name: "registry", Port: registryPort, TargetPort: intstr.FromInt32(registryPort), NodePort: RegistryNodePort,
				}},
			},
		},
	}
}

func (r *runner) buildRegistryImage(context.Context) error {
	return BuildBinaryImage(r.o.Root, r.o.Arch, "./test/infrastructure/kindregistry", RegistryImage, r.path("registry.tar"))
}

// buildFunction builds the stand-in function-patch-and-transform package:
// its meta and the stand-in's image embedded as its runtime, as a
// function's release embeds its own.
func (r *runner) buildFunction(ctx context.Context) error {
	if err := BuildBinaryImage(r.o.Root, r.o.Arch, "./test/infrastructure/standinfunction", functionImage, r.path("function.tar")); err != nil {
		return err
	}
	dir := r.path("function")
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return err
	}
	meta := "apiVersion: meta.pkg.crossplane.io/v1\nkind: Function\nmetadata:\n  name: " + functionName + "\n"
	if err := os.WriteFile(filepath.Join(dir, "crossplane.yaml"), []byte(meta), 0o600); err != nil {
		return err
	}
	return r.run(ctx, dir, nil, r.path("bin", "crossplane"), "xpkg", "build", "--package-root="+dir,
		"--embed-runtime-image-tarball="+r.path("function.tar"), "--package-file="+r.path("function.xpkg"))
}

// tools puts on r.path("bin") what the guide runs: kubectl, the test
// control plane's, and the Crossplane CLI of tools/crank.
func (r *runner) tools(ctx context.Context) error {
	bin, err := controlplane.BinDir()
	if err != nil {
		return fmt.Errorf("kubectl comes from the test control plane's build (make controlplane): %w", err)
	}
	crank, err := crossplane.GoTool(ctx, r.o.Root, "crank")
	if err != nil {
		return err
	}
	for name, target := range map[string]string{"crossplane": crank, "kubectl": filepath.Join(bin, "kubectl")} {
		link := r.path("bin", name)
		_ = os.Remove(link)
		if err := os.Symlink(target, link); err != nil {
			return err
		}
	}
	return nil
}

// startRegistry runs the registry and tells the node's containerd of it.
func (r *runner) startRegistry(ctx context.Context) error {
	if err := r.apply(ctx, Registry()); err != nil {
		return err
	}
	if err := wait(ctx, 3*time.Minute, "the registry to be available", r.deploymentsAvailable(RegistryNamespace, "registry")); err != nil {
		return err
	}
	node := &corev1.Node{}
	if err := r.kube.Get(ctx, client.ObjectKey{Name: NodeContainer}, node); err != nil {
		return err
	}
	for _, a := range node.Status.Addresses {
		if a.Type == corev1.NodeInternalIP {
			r.registry = fmt.Sprintf("%s:%d", a.Address, RegistryNodePort)
		}
	}
	if r.registry == "" {
		return fmt.Errorf("the node %s has no internal IP: %v", node.Name, node.Status.Addresses)
	}
	dir := "/etc/containerd/certs.d/" + r.registry
	script := fmt.Sprintf("mkdir -p %s && cat > %s/hosts.toml", dir, dir)
	cmd := exec.CommandContext(ctx, string(r.engine), "exec", "-i", NodeContainer, "sh", "-c", script)
	cmd.Stdin = strings.NewReader(RegistryHosts(r.registry))
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("cannot write the node's %s/hosts.toml: %w: %s", dir, err, out)
	}
	fmt.Fprintf(r.o.Out, "    the registry is %s\n", r.registry)
	return nil
}

// publish runs `make publish` to the cluster's registry, as the guide's
// step 4 does to the user's, and pushes the stand-in function.
func (r *runner) publish(ctx context.Context) error {
	org := r.registry + "/" + strings.TrimPrefix(PublishedAs, "registry.example.com/")
	if err := r.run(ctx, r.o.Root, nil, "make", "publish", "REGISTRY="+org, "VERSION="+GuideRelease); err != nil {
		return err
	}
	tag, err := functionVersion(r.o.Root)
	if err != nil {
		return err
	}
	return r.run(ctx, r.o.Root, nil, r.path("bin", "crossplane"), "xpkg", "push", "--package-files="+r.path("function.xpkg"),
		r.registry+"/crossplane-contrib/"+functionName+":"+tag)
}

// functionVersion is the tag the composition example installs.
func functionVersion(root string) (string, error) {
	b, err := os.ReadFile(filepath.Join(root, functionsFile))
	if err != nil {
		return "", err
	}
	_, tag, ok := strings.Cut(string(b), functionName+":")
	if tag = strings.TrimSpace(strings.SplitN(tag, "\n", 2)[0]); !ok || tag == "" {
		return "", fmt.Errorf("%s installs no %s by tag", functionsFile, functionName)
	}
	return tag, nil
}

// installFunction applies the composition example's Function from the
// cluster's registry and waits for its pod, as Crossplane makes it before
// the guide.
func (r *runner) installFunction(ctx context.Context) error {
	text, err := os.ReadFile(filepath.Join(r.o.Root, functionsFile))
	if err != nil {
		return err
	}
	text = bytes.ReplaceAll(text, []byte("xpkg.crossplane.io/"), []byte(r.registry+"/"))
	if err := r.kubectl(ctx, text, "apply", "-f", "-"); err != nil {
		return err
	}
	return wait(ctx, 5*time.Minute, "the Function to be installed and healthy", func(ctx context.Context) (bool, error) {
		return r.conditionTrue(ctx, "pkg.crossplane.io/v1", "Function", "", functionName, "Installed", "Healthy")
	})
}

func (r *runner) kubectl(ctx context.Context, stdin []byte, args ...string) error {
	cmd := exec.CommandContext(ctx, r.path("bin", "kubectl"), args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(stdin), r.o.Out, r.o.Out
	cmd.Env = append(os.Environ(), "KUBECONFIG="+r.path("kubeconfig"))
	return cmd.Run()
}

// runInstallGuide runs the install guide's commands and manifests in order
// and as written, but for its package reference, which names the cluster's
// registry, and two blocks it marks skip: `make publish` (publish ran) and
// `helm upgrade` of Crossplane, for which it applies the chart rendered
// with the values the guide saved, as the upgrade would.
func (r *runner) runInstallGuide(ctx context.Context) error {
	page, err := os.ReadFile(filepath.Join(r.o.Root, InstallGuide))
	if err != nil {
		return err
	}
	blocks, err := docblocks.Blocks(bytes.ReplaceAll(page, []byte(PublishedAs), []byte(r.registry+"/platform")))
	if err != nil {
		return err
	}
	dir := r.path("guide")
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return err
	}
	for _, b := range blocks {
		where := fmt.Sprintf("%s:%d", InstallGuide, b.Line)
		switch {
		case b.Marker.Verb == docblocks.VerbFile:
			err = os.WriteFile(filepath.Join(dir, b.Marker.Arg), []byte(b.Text), 0o600)
		case b.Marker.Verb == docblocks.VerbSkip && strings.Contains(b.Text, "helm upgrade crossplane"):
			fmt.Fprintf(r.o.Out, "    %s: helm upgrade of Crossplane with %s, as a render applied\n", where, crossplaneValues)
			err = r.upgradeCrossplane(ctx, filepath.Join(dir, crossplaneValues))
		case b.Marker.Skipped(true):
			fmt.Fprintf(r.o.Out, "    %s: skipped as the page says (%s)\n", where, firstLine(b.Text))
		case b.YAML():
			fmt.Fprintf(r.o.Out, "    %s: kubectl apply\n", where)
			err = r.kubectl(ctx, []byte(b.Text), "apply", "-f", "-")
		case b.Shell():
			fmt.Fprintf(r.o.Out, "    %s: %s\n", where, firstLine(b.Text))
			err = r.run(ctx, dir, []string{"KUBECONFIG=" + r.path("kubeconfig"), "PATH=" + r.path("bin") + ":" + os.Getenv("PATH")},
				"bash", "-euo", "pipefail", "-c", b.Text)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
	}
	return nil
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}

// upgradeCrossplane applies Crossplane's chart rendered with values over
// the installed release.
func (r *runner) upgradeCrossplane(ctx context.Context, values string) error {
	render, err := RenderCrossplane(ctx, r.o.Root, r.crossplane, values)
	if err != nil {
		return err
	}
	return r.kubectl(ctx, render, "apply", "--server-side", "--force-conflicts", "-f", "-")
}

// checkRestricted shows that what runs in Crossplane's namespace runs under
// the guide's Pod Security level on a real kubelet: it restarts Crossplane's
// pods, which the label alone does not touch, and waits for every
// Deployment of the namespace (Crossplane's, the provider's two replicas,
// the Function's made anew from the guide's default runtime configuration)
// to have all its pods of its latest template ready.
func (r *runner) checkRestricted(ctx context.Context) error {
	ns := &corev1.Namespace{}
	if err := r.kube.Get(ctx, client.ObjectKey{Name: ProviderNamespace}, ns); err != nil {
		return err
	}
	if got := ns.Labels["pod-security.kubernetes.io/enforce"]; got != "restricted" {
		return fmt.Errorf("namespace %s enforces %q after the guide, want restricted", ProviderNamespace, got)
	}
	for _, name := range []string{"crossplane", "crossplane-rbac-manager"} {
		if err := r.kubectl(ctx, nil, "-n", ProviderNamespace, "rollout", "restart", "deployment/"+name); err != nil {
			return err
		}
	}
	return wait(ctx, 5*time.Minute, "every Deployment of "+ProviderNamespace+" rolled out under restricted", func(ctx context.Context) (bool, error) {
		l := &appsv1.DeploymentList{}
		if err := r.kube.List(ctx, l, client.InNamespace(ProviderNamespace)); err != nil {
			return false, err
		}
		if err := guideRolledOut(l.Items); err != nil {
			return false, err
		}
		return true, r.printPods(ctx)
	})
}

// guideRolledOut says why the Deployments of Crossplane's namespace do not
// yet run as the guide leaves them: each with every replica of its latest
// template ready, among them the Function's from the guide's default
// runtime configuration (a seccomp profile) and the provider's two.
func guideRolledOut(ds []appsv1.Deployment) error {
	var fn, provider bool
	for i := range ds {
		d := &ds[i]
		if err := rolledOut(d); err != nil {
			return err
		}
		sc := d.Spec.Template.Spec.SecurityContext
		fn = fn || d.Spec.Template.Labels["pkg.crossplane.io/function"] == functionName && sc != nil && sc.SeccompProfile != nil
		provider = provider || d.Spec.Template.Labels["pkg.crossplane.io/provider"] == ProviderName && ptr.Deref(d.Spec.Replicas, 0) == 2
	}
	if !fn || !provider {
		return fmt.Errorf("no Deployment yet of %s with the guide's default runtime configuration (%t), or of the provider with two replicas (%t)", functionName, fn, provider)
	}
	return nil
}

// rolledOut says why d's latest template does not run on all its replicas
// yet: a pod the namespace refuses shows as its ReplicaFailure condition.
func rolledOut(d *appsv1.Deployment) error {
	want := ptr.Deref(d.Spec.Replicas, 1)
	s := d.Status
	if s.ObservedGeneration >= d.Generation && s.UpdatedReplicas == want && s.ReadyReplicas == want && s.Replicas == want {
		return nil
	}
	var conds []string
	for _, c := range d.Status.Conditions {
		conds = append(conds, fmt.Sprintf("%s=%s %s", c.Type, c.Status, c.Message))
	}
	return fmt.Errorf("the Deployment %s: %d of %d replicas updated, %d ready, %d in all; %s",
		d.Name, s.UpdatedReplicas, want, s.ReadyReplicas, s.Replicas, strings.Join(conds, "; "))
}

// printPods says what runs in Crossplane's namespace, and as whom.
func (r *runner) printPods(ctx context.Context) error {
	pods := &corev1.PodList{}
	if err := r.kube.List(ctx, pods, client.InNamespace(ProviderNamespace)); err != nil {
		return err
	}
	for _, p := range pods.Items {
		sc := p.Spec.SecurityContext
		var seccomp string
		if sc != nil && sc.SeccompProfile != nil {
			seccomp = string(sc.SeccompProfile.Type)
		}
		fmt.Fprintf(r.o.Out, "    %s: %s, seccomp %s, runAsNonRoot %t\n", p.Name, p.Status.Phase, seccomp, sc != nil && ptr.Deref(sc.RunAsNonRoot, false))
	}
	return nil
}
