// Package crds installs provider-coder's generated CRDs (package/crds) into
// a cluster, for the scenario tests and `make run`.
package crds

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Install creates every CRD in package/crds and waits until each is
// established.
func Install(ctx context.Context, cfg *rest.Config) error {
	s := runtime.NewScheme()
	if err := apiextensionsv1.AddToScheme(s); err != nil {
		return err
	}
	kube, err := client.New(cfg, client.Options{Scheme: s})
	if err != nil {
		return err
	}
	files, err := filepath.Glob(filepath.Join(RepoRoot(), "package", "crds", "*.yaml"))
	if err != nil || len(files) == 0 {
		return fmt.Errorf("no CRDs in package/crds (run make generate): %w", err)
	}
	var names []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.NewYAMLOrJSONDecoder(bytes.NewReader(b), 4096).Decode(crd); err != nil {
			return fmt.Errorf("cannot decode %s: %w", f, err)
		}
		if err := kube.Create(ctx, crd); err != nil && !kerrors.IsAlreadyExists(err) {
			return fmt.Errorf("cannot create CRD %s: %w", crd.Name, err)
		}
		names = append(names, crd.Name)
	}
	deadline := time.Now().Add(time.Minute)
	for _, n := range names {
		for {
			crd := &apiextensionsv1.CustomResourceDefinition{}
			if err := kube.Get(ctx, client.ObjectKey{Name: n}, crd); err != nil {
				return err
			}
			if established(crd) {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("CRD %s not established after a minute", n)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	return nil
}

func established(crd *apiextensionsv1.CustomResourceDefinition) bool {
	for _, c := range crd.Status.Conditions {
		if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
			return true
		}
	}
	return false
}

// RepoRoot is the root of the provider-coder checkout.
func RepoRoot() string {
	_, file, _, _ := goruntime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}
