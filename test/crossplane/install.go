package crossplane

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
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
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-coder/test/crds"
	"github.com/crossplane-contrib/provider-coder/test/packagerbac"
)

// ProviderName is the Provider object's name, as examples/install names it.
const ProviderName = "provider-coder"

// BuildPackage runs `make xpkg` for this machine's architecture with its
// output in dir, and returns the package file's path.
func BuildPackage(ctx context.Context, dir string) (string, error) {
	cmd := exec.CommandContext(ctx, "make", "-C", crds.RepoRoot(), "xpkg", "OUTPUT_DIR="+dir, "ARCH="+runtime.GOARCH)
	// This may itself run under make; the inner make is not part of the
	// outer one's job server.
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "MAKEFLAGS" && k != "MFLAGS" && k != "MAKELEVEL" {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("make xpkg: %w\n%s", err, out)
	}
	return filepath.Join(dir, "provider-coder-"+runtime.GOARCH+".xpkg"), nil
}

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
// one at ref, exactly as a user does, and waits until Crossplane reports
// ref's revision Healthy and active. It returns that revision.
func Install(ctx context.Context, kube client.Client, ref string) (*pkgv1.ProviderRevision, error) {
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
		if err := kube.List(ctx, l, client.MatchingLabels{"pkg.crossplane.io/package": ProviderName}); err != nil {
			return false, "", err
		}
		for i := range l.Items {
			r := &l.Items[i]
			if r.Spec.Package != ref {
				continue
			}
			c := r.GetCondition(pkgv1.TypeRevisionHealthy)
			if r.Spec.DesiredState == pkgv1.PackageRevisionActive && c.Status == corev1.ConditionTrue {
				rev = r
				return true, "", nil
			}
			return false, fmt.Sprintf("revision %s is %s, Healthy=%s (%s: %s)", r.Name, r.Spec.DesiredState, c.Status, c.Reason, c.Message), nil
		}
		return false, "no revision of " + ref + " yet", nil
	})
	if err != nil {
		return nil, fmt.Errorf("the Provider %s at %s: %w", ProviderName, ref, err)
	}
	return rev, nil
}

// RunAs makes the harness the External runtime of rev: the Deployment that
// would run the provider, owned by rev and naming packagerbac's
// ServiceAccount, which is how Crossplane's RBAC manager learns whom to bind
// the revision's ClusterRole to. It has no replicas (there is no kubelet);
// the provider runs as a process authenticated as that ServiceAccount. For
// an upgrade, RunAs with the new revision moves the Deployment to it.
func RunAs(ctx context.Context, kube client.Client, rev *pkgv1.ProviderRevision) error {
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: packagerbac.ServiceAccountNamespace, Name: packagerbac.ServiceAccountName}}
	if err := kube.Create(ctx, sa); err != nil && !kerrors.IsAlreadyExists(err) {
		return err
	}
	labels := map[string]string{"pkg.crossplane.io/provider": ProviderName}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: packagerbac.ServiceAccountNamespace, Name: ProviderName}}
	err := kube.Get(ctx, client.ObjectKeyFromObject(d), d)
	if err != nil && !kerrors.IsNotFound(err) {
		return err
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
	if err != nil {
		return fmt.Errorf("cannot apply the runtime Deployment: %w", err)
	}
	// Wait until the RBAC manager bound the revision's role to it.
	return poll(ctx, time.Minute, func() (bool, string, error) {
		b := &rbacv1.ClusterRoleBinding{}
		if err := kube.Get(ctx, client.ObjectKey{Name: SystemRoleName(rev)}, b); err != nil {
			return false, "", client.IgnoreNotFound(err)
		}
		for _, s := range b.Subjects {
			if s.Kind == rbacv1.ServiceAccountKind && s.Namespace == sa.Namespace && s.Name == sa.Name {
				return true, "", nil
			}
		}
		return false, fmt.Sprintf("the ClusterRoleBinding %s binds %v", b.Name, b.Subjects), nil
	})
}

// SystemRoleName is the name of the ClusterRole (and its binding) that the
// RBAC manager creates for the provider revision rev.
func SystemRoleName(rev *pkgv1.ProviderRevision) string {
	return "crossplane:provider:" + rev.Name + ":system"
}

// poll calls cond every half second until it holds or timeout passes; the
// error then carries cond's last word.
func poll(ctx context.Context, timeout time.Duration, cond func() (bool, string, error)) error {
	deadline := time.Now().Add(timeout)
	last := "nothing observed yet"
	for {
		ok, why, err := cond()
		switch {
		case ok:
			return nil
		case err != nil:
			last = err.Error()
		case why != "":
			last = why
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not done after %s: %s", timeout, last)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w: %s", ctx.Err(), last)
		case <-time.After(500 * time.Millisecond):
		}
	}
}
