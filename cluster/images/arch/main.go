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

// Command arch prints the GOARCH `make image`, `make xpkg` and `make e2e`
// build for when ARCH is not given: the kind node's, which is Docker's server
// architecture, or Go's own where there is no Docker engine. It says on
// stderr which it used.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/crossplane-contrib/provider-coder/cluster/images/oci"
)

func main() {
	arch, why := oci.NodeArch(context.Background())
	fmt.Fprintf(os.Stderr, "ARCH=%s (%s; ARCH=... overrides)\n", arch, why)
	fmt.Println(arch)
}
