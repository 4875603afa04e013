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
// A port is chosen at random below the kernel's ephemeral range
// (net.ipv4.ip_local_port_range) and above the well-known and registered
// ports most services use. The kernel gives every outgoing connection a
// source port from the ephemeral range, so a port handed out by ":0", which
// also comes from that range, can be taken by any client's connection in the
// moment between the pick and the process binding it: a CI run of make test
// lost a kube-apiserver that way ("bind: address already in use"). Below the
// range only another listener can take it, and every listener here is one of
// ours picking at random from about 22,000 ports.
//
// This package must not import any other of the project's, so every harness
// can use it.
package ports

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
)

// lowest is the lowest port handed out: above the ports services commonly
// bind by default (8080 for Crossplane's RBAC manager, 5432, 6379, 9090).
const lowest = 10000

// attempts bounds how many random ports Free tries per port asked for
// before it gives up.
const attempts = 100

// ephemeralRange is where Linux keeps its ephemeral port range.
const ephemeralRange = "/proc/sys/net/ipv4/ip_local_port_range"

// Free returns n distinct free TCP ports on 127.0.0.1. Every listener stays
// open until all n are chosen, so no two of them are the same port.
func Free(n int) ([]int, error) {
	ls := make([]net.Listener, 0, n)
	defer func() {
		for _, l := range ls {
			_ = l.Close()
		}
	}()
	below, ok := ephemeralLow()
	out := make([]int, 0, n)
	for range n {
		var l net.Listener
		var err error
		if ok {
			l, err = listenBelow(below)
		} else {
			l, err = net.Listen("tcp", "127.0.0.1:0")
		}
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

// listenBelow listens on a random port in [lowest, below).
func listenBelow(below int) (net.Listener, error) {
	var err error
	for range attempts {
		p := lowest + rand.IntN(below-lowest)
		var l net.Listener
		if l, err = net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p))); err == nil {
			return l, nil
		}
	}
	return nil, fmt.Errorf("%d random ports in [%d, %d) were all taken; the last: %w", attempts, lowest, below, err)
}

// ephemeralLow returns the lowest port of the kernel's ephemeral range, and
// false where it cannot be read or leaves fewer than 1,000 ports below it,
// in which case Free falls back to the kernel's choice.
func ephemeralLow() (int, bool) {
	b, err := os.ReadFile(ephemeralRange)
	if err != nil {
		return 0, false
	}
	return parseLow(string(b))
}

// parseLow reads the lowest port of an ip_local_port_range value ("32768\t60999").
func parseLow(s string) (int, bool) {
	f := strings.Fields(s)
	if len(f) != 2 {
		return 0, false
	}
	low, err := strconv.Atoi(f[0])
	if err != nil || low < lowest+1000 {
		return 0, false
	}
	return low, true
}
