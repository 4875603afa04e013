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

// Package ports finds free TCP ports on loopback for the processes the tests
// and the benchmark start: API servers, etcd, PostgreSQL, Coder, the
// provider's metrics.
//
// The kernel may hand a port out again once its listener closes, and
// another process can take it before the caller listens on it; a failure to
// listen then says so plainly. This package must not import any other of
// the project's, so every harness can use it.
package ports

import (
	"fmt"
	"net"
)

// Free returns n distinct free TCP ports on 127.0.0.1. Every listener stays
// open until all n are chosen, so the kernel cannot hand the same port out
// twice.
func Free(n int) ([]int, error) {
	ls := make([]net.Listener, 0, n)
	defer func() {
		for _, l := range ls {
			_ = l.Close()
		}
	}()
	out := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("cannot find a free port: %w", err)
		}
		ls = append(ls, l)
		out = append(out, l.Addr().(*net.TCPAddr).Port)
	}
	return out, nil
}

// One returns one free TCP port on 127.0.0.1.
func One() (int, error) {
	p, err := Free(1)
	if err != nil {
		return 0, err
	}
	return p[0], nil
}
