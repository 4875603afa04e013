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

package crossplane_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	pkgv1 "github.com/crossplane/crossplane/apis/v2/pkg/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/crossplane-contrib/provider-coder/test/framework/crds"
	"github.com/crossplane-contrib/provider-coder/test/framework/crossplane"
	"github.com/crossplane-contrib/provider-coder/test/framework/docblocks"
)

// chartValues is the file of values for Crossplane's Helm chart that step 1
// of the install guide saves and passes to helm upgrade.
const chartValues = "crossplane-restricted.yaml"

// functionsFile is the Function the composition guide installs, as it is.
const functionsFile = "examples/composition/functions.yaml"

// crossplaneDeployments are the Deployments of Crossplane's chart: the core
// and the RBAC manager.
var crossplaneDeployments = []string{"crossplane", "crossplane-rbac-manager"}

// checkCrossplanePods dry-runs the pods of Crossplane's own Deployments,
// crossplane and rbac-manager, as its Helm chart (of the release the bed
// runs) renders them with the values the guide saved in dir, in the
// namespace the guide labelled: both are admitted. Rendered without the
// values, both are refused, as the chart's defaults are.
func checkCrossplanePods(t *testing.T, b *bed, dir string) {
	t.Helper()
	values := filepath.Join(dir, chartValues)
	if _, err := os.Stat(values); err != nil {
		t.Fatalf("%s saves no %s for Crossplane's chart: %v", installGuide, chartValues, err)
	}
	if !guideUpgradesWith(t, chartValues) {
		t.Errorf("%s has no helm upgrade of Crossplane with -f %s", installGuide, chartValues)
	}
	with := renderCrossplane(t, b.kube, "-f", values)
	for _, name := range crossplaneDeployments {
		d := with[name]
		if d == nil {
			t.Fatalf("the chart renders no Deployment %s", name)
		}
		if err := dryRunPod(t.Context(), b.kube, d); err != nil {
			t.Errorf("Crossplane's %s pod, with %s, is refused: %v", name, chartValues, err)
		}
	}
	// And the values are what makes them pass: the chart's defaults set no
	// seccomp profile and drop no capability.
	without := renderCrossplane(t, b.kube)
	for _, name := range crossplaneDeployments {
		err := dryRunPod(t.Context(), b.kube, without[name])
		if err == nil || !strings.Contains(err.Error(), "seccompProfile") {
			t.Errorf("Crossplane's %s pod with the chart's defaults: %v, want it refused for its seccomp profile", name, err)
		}
	}
}

// guideUpgradesWith reports whether the install guide has a helm upgrade
// of Crossplane that passes the values file file.
func guideUpgradesWith(t *testing.T, file string) bool {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(crds.RepoRoot(), installGuide))
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := docblocks.Blocks(text)
	if err != nil {
		t.Fatal(err)
	}
	for _, blk := range blocks {
		if strings.Contains(blk.Text, "helm upgrade crossplane ") && strings.Contains(blk.Text, "-f "+file) {
			return true
		}
	}
	return false
}

// renderCrossplane renders Crossplane's chart of the release the bed runs
// with helm template (Helm of tools/helm), as `helm upgrade` would install
// it in crossplane-system with args, and returns its Deployments by name.
// The ServiceAccounts it renders are created, as the chart would, so that
// a pod that names one is judged by Pod Security and not refused for it.
func renderCrossplane(t *testing.T, kube client.Client, args ...string) map[string]*appsv1.Deployment {
	t.Helper()
	chart, v, err := crossplane.Chart()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	cmd := exec.CommandContext(t.Context(), helmBinary(t), append([]string{
		"template", "crossplane", chart, "--namespace", crossplane.Namespace, "--set", "image.tag=" + v}, args...)...)
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "HOME="+home, "HELM_CACHE_HOME="+home, "HELM_CONFIG_HOME="+home, "HELM_DATA_HOME="+home)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helm template of %s: %v\n%s", chart, err, stderr.String())
	}
	t.Logf("helm template of Crossplane's chart %s %s took %s", v, strings.Join(args, " "), time.Since(start).Round(time.Millisecond))
	deployments := map[string]*appsv1.Deployment{}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(out), 4096)
	for {
		u := &unstructured.Unstructured{}
		err := dec.Decode(&u.Object)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("helm template printed what does not decode: %v", err)
		}
		switch u.GetKind() {
		case "Deployment":
			d := &appsv1.Deployment{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, d); err != nil {
				t.Fatal(err)
			}
			deployments[d.Name] = d
		case "ServiceAccount":
			sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: crossplane.Namespace, Name: u.GetName()}}
			if err := kube.Create(t.Context(), sa); err != nil && !kerrors.IsAlreadyExists(err) {
				t.Fatal(err)
			}
		}
	}
	return deployments
}

// helm is Helm of tools/helm, built once by go tool.
var helm struct {
	once sync.Once
	path string
	err  error
}

func helmBinary(t *testing.T) string {
	t.Helper()
	helm.once.Do(func() {
		start := time.Now()
		root := crds.RepoRoot()
		helm.path, helm.err = crossplane.GoTool(context.Background(), root, "helm")
		if helm.err != nil {
			return
		}
		t.Logf("Helm of tools/helm built in %s", time.Since(start).Round(time.Second))
	})
	if helm.err != nil {
		t.Fatal(helm.err)
	}
	return helm.path
}

// installFunction installs the composition example's Function, as it is,
// from this test's registry, and waits for the Deployment Crossplane's
// package runtime makes for it. It returns the Function's name.
func installFunction(t *testing.T, b *bed, path string) string {
	t.Helper()
	fn, ref := functionOfTheExample(t)
	pushFunction(t, fn, ref, path)
	cmd := exec.CommandContext(t.Context(), "kubectl", "apply", "-f", "-")
	cmd.Stdin = strings.NewReader(strings.ReplaceAll(readRepoFile(t, functionsFile), "xpkg.crossplane.io/", reg.Host+"/"))
	cmd.Env = append(os.Environ(), "KUBECONFIG="+b.cp.KubeconfigPath, "PATH="+path+":"+os.Getenv("PATH"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("kubectl apply -f %s: %v\n%s", functionsFile, err, out)
	}
	functionDeployment(t, b.kube, fn, func(*appsv1.Deployment) bool { return true })
	return fn
}

// checkFunctionPod dry-runs the pod of the Deployment Crossplane's package
// runtime made for the Function fn, installed before the guide ran, once
// Crossplane has updated it from the default DeploymentRuntimeConfig the
// guide applied: admitted. With that configuration emptied, as Crossplane
// creates it, the Deployment Crossplane makes anew has a pod that is refused.
func checkFunctionPod(t *testing.T, b *bed, fn string) {
	t.Helper()
	d := functionDeployment(t, b.kube, fn, func(d *appsv1.Deployment) bool {
		sc := d.Spec.Template.Spec.SecurityContext
		return sc != nil && sc.SeccompProfile != nil
	})
	if err := dryRunPod(t.Context(), b.kube, d); err != nil {
		t.Errorf("%s's pod, as Crossplane makes it with the guide's default DeploymentRuntimeConfig, is refused: %v", fn, err)
	}

	// Crossplane patches the Deployment it made: a field the configuration
	// no longer sets stays. So empty the configuration and delete the
	// Deployment; Crossplane makes it anew, with its runtime's defaults.
	rc := &unstructured.Unstructured{}
	rc.SetAPIVersion("pkg.crossplane.io/v1beta1")
	rc.SetKind("DeploymentRuntimeConfig")
	if err := b.kube.Get(t.Context(), client.ObjectKey{Name: "default"}, rc); err != nil {
		t.Fatal(err)
	}
	rc.Object["spec"] = map[string]any{}
	if err := b.kube.Update(t.Context(), rc); err != nil {
		t.Fatal(err)
	}
	if err := b.kube.Delete(t.Context(), d); err != nil {
		t.Fatal(err)
	}
	anew := functionDeployment(t, b.kube, fn, func(n *appsv1.Deployment) bool { return n.UID != d.UID })
	// Refused for what the guide's configuration sets: which of its fields
	// the admission names first depends on when Crossplane read the emptied
	// configuration (seen under load: the capabilities alone).
	err := dryRunPod(t.Context(), b.kube, anew)
	if err == nil || !strings.Contains(err.Error(), "seccompProfile") && !strings.Contains(err.Error(), "capabilities.drop") {
		t.Errorf("%s's pod as Crossplane's runtime makes it by default: %v, want it refused for its seccomp profile or its capabilities", fn, err)
	}
}

// functionOfTheExample is the name and package reference of the one
// Function of the composition example.
func functionOfTheExample(t *testing.T) (name, ref string) {
	t.Helper()
	f := &pkgv1.Function{}
	if err := sigsyaml.Unmarshal([]byte(readRepoFile(t, functionsFile)), f); err != nil {
		t.Fatal(err)
	}
	if f.Name != "function-patch-and-transform" || !strings.HasPrefix(f.Spec.Package, "xpkg.crossplane.io/") {
		t.Fatalf("%s installs %s from %s; this test serves function-patch-and-transform from xpkg.crossplane.io", functionsFile, f.Name, f.Spec.Package)
	}
	return f.Name, strings.TrimPrefix(f.Spec.Package, "xpkg.crossplane.io/")
}

// pushFunction pushes a Function package named fn, built by the Crossplane
// CLI, to this test's registry as ref (repository:tag). The real package
// cannot be fetched here; the Deployment Crossplane makes for a function
// depends on its name, revision and image reference, not on what the
// package holds (runtime_function.go: functionDeploymentOverrides).
func pushFunction(t *testing.T, fn, ref, path string) {
	t.Helper()
	dir := t.TempDir()
	meta := "apiVersion: meta.pkg.crossplane.io/v1\nkind: Function\nmetadata:\n  name: " + fn + "\n"
	if err := os.WriteFile(filepath.Join(dir, "crossplane.yaml"), []byte(meta), 0o600); err != nil {
		t.Fatal(err)
	}
	xpkg := filepath.Join(t.TempDir(), fn+".xpkg")
	build := exec.CommandContext(t.Context(), filepath.Join(path, "crossplane"), "xpkg", "build",
		"--package-root="+dir, "--examples-root="+filepath.Join(dir, "examples"), "--package-file="+xpkg)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("crossplane xpkg build of %s: %v\n%s", fn, err, out)
	}
	repo, tag, _ := strings.Cut(ref, ":")
	if _, err := reg.Push(xpkg, repo, tag); err != nil {
		t.Fatal(err)
	}
}

// functionDeployment waits for the Deployment Crossplane's runtime makes
// for the active revision of the Function fn, until ok holds of it.
func functionDeployment(t *testing.T, kube client.Client, fn string, ok func(*appsv1.Deployment) bool) *appsv1.Deployment {
	t.Helper()
	d := &appsv1.Deployment{}
	var why string
	err := wait.PollUntilContextTimeout(t.Context(), 250*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		revs := &pkgv1.FunctionRevisionList{}
		if err := kube.List(ctx, revs, client.MatchingLabels{pkgv1.LabelParentPackage: fn}); err != nil {
			return false, err
		}
		for _, r := range revs.Items {
			if r.Spec.DesiredState != pkgv1.PackageRevisionActive {
				continue
			}
			if err := kube.Get(ctx, client.ObjectKey{Namespace: crossplane.Namespace, Name: r.Name}, d); err != nil {
				why = err.Error()
				return false, nil
			}
			why = "its Deployment is not remade yet"
			return ok(d), nil
		}
		why = "no active FunctionRevision"
		return false, nil
	})
	if err != nil {
		t.Fatalf("no Deployment for %s: %v (%s)", fn, err, why)
	}
	return d
}

// dryRunPod asks the API server to admit the pod d's ReplicaSet would
// create, in d's namespace; a dry run stores nothing.
func dryRunPod(ctx context.Context, kube client.Client, d *appsv1.Deployment) error {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: d.Namespace, GenerateName: d.Name + "-", Labels: d.Spec.Template.Labels},
		Spec:       *d.Spec.Template.Spec.DeepCopy(),
	}
	if pod.Namespace == "" {
		pod.Namespace = crossplane.Namespace
	}
	return kube.Create(ctx, pod, client.DryRunAll)
}

func readRepoFile(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(crds.RepoRoot(), rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
