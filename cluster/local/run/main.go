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

// Command run is `make run`: it starts a local Kubernetes control plane and a
// fake Coder (CODER=real: the real Coder server with its own PostgreSQL; or
// uses CODER_URL and CODER_TOKEN), installs the CRDs and
// examples/quickstart, and runs the provider in the foreground. Ctrl-C stops
// everything it started.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-coder/internal/provider"
	"github.com/crossplane-contrib/provider-coder/test/framework/controlplane"
	"github.com/crossplane-contrib/provider-coder/test/framework/crds"
	"github.com/crossplane-contrib/provider-coder/test/framework/realcoder"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// quickstartNamespace is where examples/quickstart puts its objects.
const quickstartNamespace = "team-a"

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "make run:", err)
		os.Exit(1)
	}
}

func run() error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	start := time.Now()

	bin, err := controlplane.BinDir()
	if err != nil {
		return err
	}
	say("starting etcd, kube-apiserver and kube-controller-manager ...")
	cp, err := controlplane.Start(ctx, controlplane.Options{BinDir: bin})
	if err != nil {
		return err
	}
	defer func() { _ = cp.Stop() }()

	url, token, stopCoder, err := startCoder(ctx)
	if err != nil {
		return err
	}
	defer stopCoder()

	if err := crds.Install(ctx, cp.Config); err != nil {
		return err
	}
	s, err := provider.Scheme()
	if err != nil {
		return err
	}
	kube, err := client.New(cp.Config, client.Options{Scheme: s})
	if err != nil {
		return err
	}
	if err := applyQuickstart(ctx, kube, url, token); err != nil {
		return err
	}
	say("control plane, CRDs and quickstart ready in %s", time.Since(start).Round(time.Millisecond))
	say("")
	say("export KUBECONFIG=%s", cp.KubeconfigPath)
	say("kubectl get providerconfigs.coder.m.crossplane.io,aigatewaykeys.ai.coder.m.crossplane.io -A")
	say("kubectl -n %s get secret gateway-key -o jsonpath='{.data.keyPrefix}' | base64 -d", quickstartNamespace)
	say("kubectl get events -A --watch")
	say("(kubectl is at %s)", filepath.Join(bin, "kubectl"))
	say("")

	o := provider.DefaultOptions()
	o.Debug = os.Getenv("DEBUG") != ""
	o.ConsoleLogs = true
	o.PollInterval = 15 * time.Second
	o.MetricsBindAddress = "127.0.0.1:8080"
	o.HealthProbeBindAddress = "127.0.0.1:8081"
	err = provider.Run(ctx, provider.RESTConfig(cp.Config), o)
	if ctx.Err() != nil {
		say("stopping everything make run started")
		return nil
	}
	return err
}

// startCoder starts the Coder the provider talks to: the one at CODER_URL,
// the real server (CODER=real), or the fake.
func startCoder(ctx context.Context) (url, token string, stop func(), err error) {
	url, token = os.Getenv("CODER_URL"), os.Getenv("CODER_TOKEN")
	switch {
	case url != "" && token == "":
		return "", "", nil, errors.New("CODER_URL is set but CODER_TOKEN is not")
	case url != "":
		say("using the Coder at %s", url)
		return url, token, func() {}, nil
	case os.Getenv("CODER") == "real":
		say("starting PostgreSQL and the real Coder server (as Coder ships it) ...")
		c, err := realcoder.Start(ctx, realcoder.Options{})
		if err != nil {
			return "", "", nil, err
		}
		if c.Licensed {
			say("Coder runs with the licence %s names", realcoder.EnvLicenseFile)
		} else {
			say("Coder runs unlicensed: AIProviders work; AIGatewayKeys get Coder's 403 until you set %s to a Coder licence file (a trial's will do)", realcoder.EnvLicenseFile)
		}
		say("real Coder at %s (API only, no dashboard); the Owner's session token goes into the Secret %s/coder-token", c.URL, quickstartNamespace)
		return c.URL.String(), c.Token, c.Stop, nil
	case os.Getenv("CODER") != "" && os.Getenv("CODER") != "fake":
		return "", "", nil, fmt.Errorf("CODER=%s: want fake (the default) or real", os.Getenv("CODER"))
	}
	fake := fakecoder.New(fakecoder.Options{})
	addr := os.Getenv("FAKECODER_LISTEN")
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	if err := fake.StartOn(addr); err != nil {
		return "", "", nil, err
	}
	say("fake Coder at %s (admin API %s/fakecoder/admin/)", fake.URL(), fake.URL())
	return fake.URL(), fake.Token(), fake.Close, nil
}

// applyQuickstart creates the token Secret and every object of
// examples/quickstart, pointing the ProviderConfig at url.
func applyQuickstart(ctx context.Context, kube client.Client, url, token string) error {
	objs, err := quickstartObjects()
	if err != nil {
		return err
	}
	for _, u := range objs {
		if err := applyQuickstartObject(ctx, kube, u, url, token); err != nil {
			return err
		}
	}
	return nil
}

// quickstartObjects are the objects of examples/quickstart, file by file in
// name order.
func quickstartObjects() ([]*unstructured.Unstructured, error) {
	files, err := filepath.Glob(filepath.Join(crds.RepoRoot(), "examples", "quickstart", "*.yaml"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var objs []*unstructured.Unstructured
	for _, f := range files {
		fo, err := crds.DecodeFile(f)
		if err != nil {
			return nil, err
		}
		objs = append(objs, fo...)
	}
	return objs, nil
}

// applyQuickstartObject creates u, a ProviderConfig pointed at url, and
// after the quickstart's namespace the token Secret in it.
func applyQuickstartObject(ctx context.Context, kube client.Client, u *unstructured.Unstructured, url, token string) error {
	if u.GetKind() == "ProviderConfig" {
		if err := unstructured.SetNestedField(u.Object, url, "spec", "url"); err != nil {
			return err
		}
	}
	if err := kube.Create(ctx, u); err != nil && !kerrors.IsAlreadyExists(err) {
		return fmt.Errorf("cannot create %s %s: %w", u.GetKind(), u.GetName(), err)
	}
	if u.GetKind() != "Namespace" || u.GetName() != quickstartNamespace {
		return nil
	}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: quickstartNamespace, Name: "coder-token"},
		Data:       map[string][]byte{"token": []byte(token)},
	}
	if err := kube.Create(ctx, secret); err != nil && !kerrors.IsAlreadyExists(err) {
		return fmt.Errorf("cannot create the token Secret: %w", err)
	}
	return nil
}

func say(format string, args ...any) {
	fmt.Printf("==> "+format+"\n", args...)
}
