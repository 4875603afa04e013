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

package main

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"runtime/debug"

	"golang.org/x/crypto/x509roots/fallback/bundle"
)

const fallbackModule = "golang.org/x/crypto/x509roots/fallback"

// caCerts is the PEM bundle for the image and where it came from.
type caCerts struct {
	pem    []byte
	source string
}

// findCACerts picks the image's CA certificates: the -ca-certs file when one
// is named, else Go's fallback roots, whose version go.sum pins. Never the
// build host's bundle: two hosts must build the same bytes. A named file
// must hold a certificate: a typo must not quietly build an image with other
// certificates.
func findCACerts(flagPath string, read func(string) ([]byte, error), fallback func() caCerts) (caCerts, error) {
	if flagPath == "" {
		return fallback(), nil
	}
	b, err := read(flagPath)
	if err != nil {
		return caCerts{}, fmt.Errorf("cannot read CA certificates (-ca-certs): %w", err)
	}
	n := countCerts(b)
	if n == 0 {
		return caCerts{}, fmt.Errorf("%s (-ca-certs) holds no PEM certificate", flagPath)
	}
	return caCerts{pem: b, source: fmt.Sprintf("%d from %s (-ca-certs)", n, flagPath)}, nil
}

// countCerts counts the PEM blocks of b that parse as certificates.
func countCerts(b []byte) int {
	n := 0
	for {
		var block *pem.Block
		block, b = pem.Decode(b)
		if block == nil {
			return n
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		if _, err := x509.ParseCertificate(block.Bytes); err == nil {
			n++
		}
	}
}

// fallbackCACerts writes Go's fallback roots (Mozilla's, from the module
// proxy) as PEM. Roots with a distrust-after date are left out: a PEM file
// cannot say "not for certificates issued after", so including them would
// trust more than Mozilla does.
func fallbackCACerts() caCerts {
	var buf bytes.Buffer
	n, skipped := 0, 0
	for r := range bundle.Roots() {
		if r.Constraint != nil {
			skipped++
			continue
		}
		_ = pem.Encode(&buf, &pem.Block{Type: "CERTIFICATE", Bytes: r.Certificate})
		n++
	}
	return caCerts{pem: buf.Bytes(), source: fmt.Sprintf(
		"%d from Go's fallback roots, %s %s (left out: %d with a distrust-after date, which PEM cannot express)",
		n, fallbackModule, moduleVersion(fallbackModule), skipped)}
}

func moduleVersion(path string) string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == path {
				return d.Version
			}
		}
	}
	return "(version unknown)"
}
