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
