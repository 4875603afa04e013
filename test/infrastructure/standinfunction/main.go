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

// Command standinfunction stands in for function-patch-and-transform's
// runtime in make e2e's kind cluster, which can fetch neither its image
// (no registry is reachable) nor its module (the Go module proxy refuses
// it): it listens on the function port Crossplane's package runtime
// names until the pod is stopped, so what the kind run checks is the pod
// Crossplane makes for a function under the install guide's Pod Security
// level, run by a real kubelet, not the function's own work.
package main

import (
	"flag"
	"log"
	"net"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	listen := flag.String("listen", ":9443", "Address to accept connections on (Crossplane's function gRPC port).")
	flag.Parse()
	l, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("standing in for a function on %s", *listen)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			_ = c.Close()
		}
	}()
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, os.Interrupt)
	<-stop
	_ = l.Close()
}
