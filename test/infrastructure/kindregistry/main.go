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

// Command kindregistry is the OCI registry inside make e2e's kind cluster,
// where `make publish` pushes the package the install guide installs by
// tag: go-containerregistry's in-memory registry over plain HTTP. A node
// reaches it by its own address (an RFC 1918 one, which Crossplane's
// package fetcher speaks plain HTTP to), containerd through the node's
// hosts.toml (test/framework/kind: RegistryHosts).
package main

import (
	"flag"
	"log"
	"net/http"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
)

func main() {
	listen := flag.String("listen", ":5000", "Address to serve the registry on.")
	flag.Parse()
	srv := &http.Server{Addr: *listen, Handler: registry.New(), ReadHeaderTimeout: 30 * time.Second}
	log.Printf("serving an OCI registry on %s", *listen)
	log.Fatal(srv.ListenAndServe())
}
