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

package interleave

import (
	"context"
	"fmt"
	"os"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-coder/internal/provider"
	"github.com/crossplane-contrib/provider-coder/test/framework/controlplane"
	"github.com/crossplane-contrib/provider-coder/test/framework/crds"
	"github.com/crossplane-contrib/provider-coder/test/framework/packagerbac"
	"github.com/crossplane-contrib/provider-coder/test/framework/providerprocess"
	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// A Bed is what every run shares: the control plane with the CRDs and the
// package's RBAC, the fake Coder and the provider binary, run as the
// ServiceAccount Crossplane would give it.
type Bed struct {
	Kube client.WithWatch
	Fake *fakecoder.Server
	// Other is a second deployment, with the same token, that a plan
	// repoints ProviderConfigs to and back (OpRepointURL).
	Other    *fakecoder.Server
	Provider *providerprocess.Process
	Dir      string
	cp       *controlplane.ControlPlane
}

// StartBed starts a Bed; dir holds the provider binary and its logs.
func StartBed(ctx context.Context, dir string) (_ *Bed, err error) {
	bin, err := controlplane.BinDir()
	if err != nil {
		return nil, err
	}
	var cpLogs *os.File
	if os.Getenv("PROVIDER_CODER_TEST_VERBOSE") != "" {
		cpLogs = os.Stderr
	}
	o := controlplane.Options{BinDir: bin}
	if cpLogs != nil {
		o.Logs = cpLogs
	}
	built := make(chan error, 1)
	var providerBin string
	// The provider builds while the control plane starts.
	go func() {
		var err error
		providerBin, err = providerprocess.BuildProvider(ctx, dir)
		built <- err
	}()
	cp, err := controlplane.Start(ctx, o)
	buildErr := <-built
	if err != nil {
		return nil, err
	}
	b := &Bed{cp: cp, Dir: dir}
	defer func() {
		if err != nil {
			b.Stop()
		}
	}()
	if buildErr != nil {
		return nil, buildErr
	}
	s, err := provider.Scheme()
	if err != nil {
		return nil, err
	}
	// The harness's own client: it must never be what paces a run.
	cfg := rest.CopyConfig(cp.Config)
	cfg.QPS, cfg.Burst = 200, 400
	if b.Kube, err = client.NewWithWatch(cfg, client.Options{Scheme: s}); err != nil {
		return nil, err
	}
	if err := crds.Install(ctx, cp.Config); err != nil {
		return nil, err
	}
	if err := testenv.GrantPackageRBAC(ctx, b.Kube); err != nil {
		return nil, err
	}
	b.Fake = fakecoder.New(fakecoder.Options{})
	if err := b.Fake.Start(); err != nil {
		return nil, err
	}
	b.Other = fakecoder.New(fakecoder.Options{Token: b.Fake.Token()})
	if err := b.Other.Start(); err != nil {
		return nil, err
	}
	if b.Provider, err = providerprocess.New(providerBin, dir, cp.UserConfig(packagerbac.User(), packagerbac.Groups()...), Flags...); err != nil {
		return nil, err
	}
	start := time.Now()
	if err := b.Provider.Start(ctx); err != nil {
		return nil, err
	}
	fmt.Printf("interleavings: provider up in %s\n", time.Since(start).Round(time.Millisecond))
	return b, nil
}

// Stop stops everything StartBed started.
func (b *Bed) Stop() {
	if b.Provider != nil {
		b.Provider.Stop()
	}
	if b.Fake != nil {
		b.Fake.Close()
	}
	if b.Other != nil {
		b.Other.Close()
	}
	if b.cp != nil {
		_ = b.cp.Stop()
	}
}
