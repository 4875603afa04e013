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
	"errors"
	"fmt"
	"io/fs"
	"runtime/debug"

	"golang.org/x/crypto/x509roots/fallback/bundle"
)

// hostBundles are the PEM bundles Go's crypto/x509 looks for on Linux
// (root_linux.go), then on the BSDs (root_bsd.go); macOS has /etc/ssl/cert.pem.
// The first that holds a certificate goes into the image.
var hostBundles = []string{
	"/etc/ssl/certs/ca-certificates.crt",                // Debian, Ubuntu, Gentoo, Arch
	"/etc/pki/tls/certs/ca-bundle.crt",                  // Fedora, RHEL
	"/etc/ssl/ca-bundle.pem",                            // openSUSE
	"/etc/pki/tls/cacert.pem",                           // OpenELEC
	"/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem", // CentOS, RHEL 7
	"/etc/ssl/cert.pem",                                 // Alpine, macOS, OpenBSD
	"/usr/local/etc/ssl/cert.pem",                       // FreeBSD
	"/usr/local/share/certs/ca-root-nss.crt",            // DragonFly
	"/etc/openssl/certs/ca-certificates.crt",            // NetBSD
}

const fallbackModule = "golang.org/x/crypto/x509roots/fallback"

// caCerts is the PEM bundle for the image and where it came from.
type caCerts struct {
	pem    []byte
	source string
}

// findCACerts picks the image's CA certificates: the -ca-certs file, else
// SSL_CERT_FILE, else the first host bundle that holds a certificate, else
// Go's fallback roots. A file named by the flag or the variable must hold
// one: a typo must not quietly build an image with other certificates.
func findCACerts(flagPath, envPath string, candidates []string, read func(string) ([]byte, error), fallback func() caCerts) (caCerts, error) {
	for _, explicit := range []struct{ path, by string }{{flagPath, "-ca-certs"}, {envPath, "SSL_CERT_FILE"}} {
		if explicit.path == "" {
			continue
		}
		b, err := read(explicit.path)
		if err != nil {
			return caCerts{}, fmt.Errorf("cannot read CA certificates (%s): %w", explicit.by, err)
		}
		n := countCerts(b)
		if n == 0 {
			return caCerts{}, fmt.Errorf("%s (%s) holds no PEM certificate", explicit.path, explicit.by)
		}
		return caCerts{pem: b, source: fmt.Sprintf("%d from %s (%s)", n, explicit.path, explicit.by)}, nil
	}
	for _, p := range candidates {
		b, err := read(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return caCerts{}, fmt.Errorf("cannot read CA certificates: %w", err)
		}
		if n := countCerts(b); n > 0 {
			return caCerts{pem: b, source: fmt.Sprintf("%d from %s (the host's bundle)", n, p)}, nil
		}
	}
	return fallback(), nil
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
		"%d from Go's fallback roots, %s %s (no CA bundle on this host; left out: %d with a distrust-after date, which PEM cannot express)",
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
