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

package crossplane

import (
	"archive/tar"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	pkgv1 "github.com/crossplane/crossplane/apis/v2/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-coder/test/framework/controlplane"
	"github.com/crossplane-contrib/provider-coder/test/framework/crds"
	"github.com/crossplane-contrib/provider-coder/test/framework/docblocks"
	"github.com/crossplane-contrib/provider-coder/test/framework/packagerbac"
	"github.com/crossplane-contrib/provider-coder/test/framework/providerprocess"
)

// ProviderName is the Provider object's name, as examples/install names it.
const ProviderName = "provider-coder"

// Org is the organisation the install guide's package reference names,
// the path a release publishes under in its registry.
const Org = "crossplane-contrib"

// A Release is what `make publish` pushed: the package reference (the
// registry's REGISTRY/provider-coder:VERSION) and the package files it
// pushed, by architecture.
type Release struct {
	Ref   string
	Files map[string]string
}

// Publish runs `make publish` as a release does, to registry host reg as
// version, with its output in dir: both architectures' packages and their
// index.
func Publish(ctx context.Context, reg, version, dir string) (Release, error) {
	cmd := Make(ctx, crds.RepoRoot(), "publish", "REGISTRY="+reg+"/"+Org, "VERSION="+version, "OUTPUT_DIR="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		return Release{}, fmt.Errorf("make publish: %w\n%s", err, out)
	}
	r := Release{Ref: reg + "/" + Org + "/provider-coder:" + version, Files: map[string]string{}}
	for _, arch := range []string{"amd64", "arm64"} {
		r.Files[arch] = filepath.Join(dir, "provider-coder-"+arch+".xpkg")
	}
	return r, nil
}

// Local is this machine's architecture's package file of r: the one whose
// provider binary runs here.
func (r Release) Local() string { return r.Files[runtime.GOARCH] }

// providerPath is the provider binary's path in the runtime image the
// package embeds.
const providerPath = "usr/local/bin/provider"

// ExtractProvider writes the provider binary of the package file xpkg to
// dir and returns its path: the binary Crossplane's Deployment runtime would
// run.
func ExtractProvider(xpkg, dir string) (string, error) {
	img, err := tarball.ImageFromPath(xpkg, nil)
	if err != nil {
		return "", fmt.Errorf("cannot read %s: %w", xpkg, err)
	}
	rc := mutate.Extract(img)
	defer func() { _ = rc.Close() }()
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return "", fmt.Errorf("%s: no /%s in the package's image", xpkg, providerPath)
		}
		if err != nil {
			return "", err
		}
		if path.Clean(strings.TrimPrefix(h.Name, "/")) != providerPath {
			continue
		}
		out := filepath.Join(dir, "provider")
		f, err := os.OpenFile(out, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o755) //nolint:gosec // an executable
		if err != nil {
			return "", err
		}
		if _, err := io.Copy(f, tr); err != nil { //nolint:gosec // our own image, size bounded by the build
			_ = f.Close()
			return "", err
		}
		return out, f.Close()
	}
}

// Install creates the Provider for the package ref, or points the existing
// one at ref, exactly as a user does; acts as the External runtime of ref's
// revision (actAsRuntime, which runs step 2 of ExternalRuntimeGuide with
// cp's kubectl); and waits until Crossplane reports that revision
// Healthy and active and its RBAC manager bound the revision's ClusterRole to
// the provider's ServiceAccount. It returns the revision.
func Install(ctx context.Context, cp *controlplane.ControlPlane, kube client.Client, ref string) (*pkgv1.ProviderRevision, error) {
	p := &pkgv1.Provider{ObjectMeta: metav1.ObjectMeta{Name: ProviderName}}
	err := kube.Get(ctx, client.ObjectKeyFromObject(p), p)
	switch {
	case kerrors.IsNotFound(err):
		p.Spec.Package = ref
		err = kube.Create(ctx, p)
	case err == nil:
		p.Spec.Package = ref
		err = kube.Update(ctx, p)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot apply the Provider %s: %w", ProviderName, err)
	}
	var rev *pkgv1.ProviderRevision
	err = poll(ctx, 3*time.Minute, func() (bool, string, error) {
		l := &pkgv1.ProviderRevisionList{}
		if err := kube.List(ctx, l, client.MatchingLabels{pkgv1.LabelParentPackage: ProviderName}); err != nil {
			return false, "", err
		}
		for i := range l.Items {
			r := &l.Items[i]
			if r.Spec.Package != ref {
				continue
			}
			if r.Spec.DesiredState != pkgv1.PackageRevisionActive {
				return false, fmt.Sprintf("revision %s is %s", r.Name, r.Spec.DesiredState), nil
			}
			if err := actAsRuntime(ctx, cp, kube, r); err != nil {
				return false, "", err
			}
			if c := r.GetCondition(pkgv1.TypeRevisionHealthy); c.Status != corev1.ConditionTrue {
				return false, fmt.Sprintf("revision %s: Healthy=%s (%s: %s)", r.Name, c.Status, c.Reason, c.Message), nil
			}
			if ok, why, err := bound(ctx, kube, r); !ok || err != nil {
				return false, why, err
			}
			rev = r
			return true, "", nil
		}
		return false, "no revision of " + ref + " yet", nil
	})
	if err != nil {
		return nil, fmt.Errorf("the Provider %s at %s: %w", ProviderName, ref, err)
	}
	return rev, nil
}

// tlsServerSecret is the Secret the runtime fills with the provider's
// webhook serving certificate, named as the Deployment runtime names it and
// as ExternalRuntimeGuide's step 2 creates it.
const tlsServerSecret = ProviderName + "-tls-server"

// ExternalRuntimeGuide is the page of what the External runtime leaves to
// whoever runs the provider. actAsRuntime runs its step 2, the one shell
// block that sets the revision's status.tlsServerSecretName, as written.
const ExternalRuntimeGuide = "docs/how-to/external-runtime.md"

// actAsRuntime does for rev what Crossplane's Deployment runtime does and the
// External runtime leaves to whoever runs the provider; it is idempotent,
// for calling until the revision is Healthy.
//
//   - The webhook TLS Secret, and its name in the revision's status: the
//     revision controller establishes nothing until the runtime set it (it
//     injects the CA into CRDs with conversion webhooks; ours have none).
//     This is the guide's block, run with bash and cp's kubectl, so that a
//     field or a command the page gets wrong fails here.
//   - The Deployment that would run the provider, owned by rev and naming
//     packagerbac's ServiceAccount: Crossplane's RBAC manager binds the
//     revision's system ClusterRole to the ServiceAccounts of the
//     Deployments a revision owns. It has no replicas (there is no kubelet);
//     the provider runs as a process authenticated as that ServiceAccount.
//     An upgrade moves it to the new revision.
func actAsRuntime(ctx context.Context, cp *controlplane.ControlPlane, kube client.Client, rev *pkgv1.ProviderRevision) error {
	ns := packagerbac.ServiceAccountNamespace
	if name := rev.GetObservedTLSServerSecretName(); name == nil || *name != tlsServerSecret {
		if err := runTLSStep(ctx, cp, ns); err != nil {
			return err
		}
		// The revision read before the block ran is stale now.
		return nil
	}

	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: packagerbac.ServiceAccountName}}
	if err := kube.Create(ctx, sa); err != nil && !kerrors.IsAlreadyExists(err) {
		return err
	}
	labels := map[string]string{"pkg.crossplane.io/provider": ProviderName}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: ProviderName}}
	err := kube.Get(ctx, client.ObjectKeyFromObject(d), d)
	if err != nil && !kerrors.IsNotFound(err) {
		return err
	}
	if err == nil && metav1.IsControlledBy(d, rev) {
		return nil
	}
	create := kerrors.IsNotFound(err)
	d.Labels = labels
	d.OwnerReferences = []metav1.OwnerReference{{
		APIVersion: pkgv1.ProviderRevisionGroupVersionKind.GroupVersion().String(),
		Kind:       pkgv1.ProviderRevisionKind,
		Name:       rev.Name,
		UID:        rev.UID,
		Controller: ptr.To(true),
	}}
	d.Spec = appsv1.DeploymentSpec{
		Replicas: ptr.To[int32](0),
		Selector: &metav1.LabelSelector{MatchLabels: labels},
		Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: labels},
			Spec: corev1.PodSpec{
				ServiceAccountName: packagerbac.ServiceAccountName,
				Containers:         []corev1.Container{{Name: "package-runtime", Image: rev.Spec.Package}},
			},
		},
	}
	if create {
		err = kube.Create(ctx, d)
	} else {
		err = kube.Update(ctx, d)
	}
	if err := ignoreConflict(err); err != nil {
		return fmt.Errorf("cannot apply the runtime Deployment: %w", err)
	}
	return nil
}

// runTLSStep runs the shell block of ExternalRuntimeGuide that gives the
// active revision its webhook TLS Secret, in a directory holding the
// tls.crt and tls.key it names (a self-signed certificate for the
// provider's Service in ns), with cp's kubectl first on PATH.
func runTLSStep(ctx context.Context, cp *controlplane.ControlPlane, ns string) error {
	page, err := os.ReadFile(filepath.Join(crds.RepoRoot(), ExternalRuntimeGuide))
	if err != nil {
		return err
	}
	blocks, err := docblocks.Blocks(page)
	if err != nil {
		return fmt.Errorf("%s: %w", ExternalRuntimeGuide, err)
	}
	var step []docblocks.Block
	for _, b := range blocks {
		if b.Shell() && strings.Contains(b.Text, "--subresource=status") {
			step = append(step, b)
		}
	}
	if len(step) != 1 {
		return fmt.Errorf("%s has %d shell blocks that patch a revision's status, want step 2's one", ExternalRuntimeGuide, len(step))
	}
	dir, err := os.MkdirTemp("", "provider-coder-tls-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	crt, key, err := selfSigned(ProviderName + "." + ns + ".svc")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, corev1.TLSCertKey), crt, 0o600); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, corev1.TLSPrivateKeyKey), key, 0o600); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", step[0].Text)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "KUBECONFIG="+cp.KubeconfigPath,
		"PATH="+filepath.Dir(cp.Kubectl().Path)+string(os.PathListSeparator)+os.Getenv("PATH"))
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s:%d: %w\n%s", ExternalRuntimeGuide, step[0].Line, err, out)
	}
	return nil
}

// bound reports whether the RBAC manager created rev's system ClusterRole
// (it does once the revision's CRDs are established) and bound it to the
// provider's ServiceAccount.
func bound(ctx context.Context, kube client.Client, rev *pkgv1.ProviderRevision) (bool, string, error) {
	if err := kube.Get(ctx, client.ObjectKey{Name: SystemRoleName(rev)}, &rbacv1.ClusterRole{}); err != nil {
		return false, "no ClusterRole " + SystemRoleName(rev) + " yet", client.IgnoreNotFound(err)
	}
	b := &rbacv1.ClusterRoleBinding{}
	if err := kube.Get(ctx, client.ObjectKey{Name: SystemRoleName(rev)}, b); err != nil {
		return false, "no ClusterRoleBinding " + SystemRoleName(rev) + " yet", client.IgnoreNotFound(err)
	}
	for _, s := range b.Subjects {
		if s.Kind == rbacv1.ServiceAccountKind && s.Namespace == packagerbac.ServiceAccountNamespace && s.Name == packagerbac.ServiceAccountName {
			return true, "", nil
		}
	}
	return false, fmt.Sprintf("the ClusterRoleBinding %s binds %v", b.Name, b.Subjects), nil
}

func ignoreConflict(err error) error {
	if kerrors.IsConflict(err) {
		return nil
	}
	return err
}

// SystemRoleName is the name of the ClusterRole (and its binding) that the
// RBAC manager creates for the provider revision rev.
func SystemRoleName(rev *pkgv1.ProviderRevision) string {
	return "crossplane:provider:" + rev.Name + ":system"
}

// poll calls cond every half second until it holds or timeout passes; the
// error then carries cond's last word.
func poll(ctx context.Context, timeout time.Duration, cond func() (bool, string, error)) error {
	last := "nothing observed yet"
	err := wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, timeout, true, func(context.Context) (bool, error) {
		ok, why, err := cond()
		switch {
		case err != nil:
			last = err.Error()
		case why != "":
			last = why
		}
		return ok, nil
	})
	if err != nil {
		return fmt.Errorf("not done after %s: %s (%w)", timeout, last, err)
	}
	return nil
}

// selfSigned returns a PEM certificate for dnsName, valid for a day, and its
// key.
func selfSigned(dnsName string) (crt, key []byte, err error) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: dnsName},
		DNSNames:              []string{dnsName},
		NotBefore:             time.Now().Add(-time.Minute),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA:                  true,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		return nil, nil, err
	}
	kd, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kd}), nil
}

// RunProvider is the rest of an install as an operator does it, with the
// provider run by the External runtime: it applies examples/install/rbac.yaml
// and starts the provider binary of the package file xpkg, with flags, as the
// ServiceAccount Crossplane's RBAC manager bound, logging in dir.
func RunProvider(ctx context.Context, kube client.Client, cp *controlplane.ControlPlane, xpkg, dir string, flags ...string) (*providerprocess.Process, error) {
	pkg, err := packagerbac.Load(crds.RepoRoot())
	if err != nil {
		return nil, err
	}
	for _, o := range []client.Object{pkg.ExtraClusterRole(), pkg.ExtraBinding.DeepCopy()} {
		if err := kube.Create(ctx, o); err != nil && !kerrors.IsAlreadyExists(err) {
			return nil, fmt.Errorf("cannot apply %s: %w", packagerbac.ExtraRBACFile, err)
		}
	}
	bin, err := ExtractProvider(xpkg, dir)
	if err != nil {
		return nil, err
	}
	p, err := providerprocess.New(bin, dir, cp.UserConfig(packagerbac.User(), packagerbac.Groups()...), flags...)
	if err != nil {
		return nil, err
	}
	if err := p.Start(ctx); err != nil {
		p.Stop()
		return nil, fmt.Errorf("%w:\n%s", err, p.Logs())
	}
	return p, nil
}
