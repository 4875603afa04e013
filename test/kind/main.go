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

// Command e2e is `make e2e`: the hold and records scenarios of test/e2e on a
// kind cluster with Crossplane and provider-coder installed as a package
// (see package kind). It needs Docker or rootful Podman and exits 1 at once
// with neither.
// KEEP=1 keeps the cluster, KEEP=on-failure keeps it when the run fails; a
// failed run prints the Provider's conditions, the events and the logs first.
// E2E_RUN=<pattern> runs only the scenarios it selects, in one go test.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/crossplane-contrib/provider-coder/cluster/images/oci"
	"github.com/crossplane-contrib/provider-coder/test/framework/kind"
)

func main() { os.Exit(run()) }

func run() int {
	arch := flag.String("arch", "", "GOARCH of the images (ARCH of make image; default: Docker's server architecture, else Go's).")
	render := flag.Bool("render-crossplane", false, "Only write cluster/kind/crossplane-<CROSSPLANE_VERSION>.yaml from Crossplane's chart (make kind-crossplane).")
	flag.Parse()
	if *render {
		return renderCrossplane()
	}
	if *arch == "" {
		a, why := oci.NodeArch(context.Background())
		fmt.Printf("ARCH=%s (%s)\n", a, why)
		*arch = a
	}
	root, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	keep, err := kind.ParseKeep(os.Getenv("KEEP"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 2
	}
	err = kind.Run(ctx, kind.Options{Root: root, Arch: *arch, Keep: keep, Out: os.Stdout, Run: os.Getenv("E2E_RUN")})
	var noEngine *kind.NoEngineError
	switch {
	case errors.As(err, &noEngine):
		fmt.Fprintln(os.Stderr, "e2e:", err)
		fmt.Fprintln(os.Stderr, "e2e: nothing was run; `make test` runs the same scenarios against a local control plane.")
		return 1
	case err != nil:
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	return 0
}

// renderCrossplane writes the chart's render the kind run installs
// Crossplane from (kind.RenderCrossplane).
func renderCrossplane() int {
	root, err := os.Getwd()
	if err == nil {
		err = kind.WriteCrossplaneRender(context.Background(), root)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	return 0
}
