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
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io/fs"
	"math/big"
	"strings"
	"testing"
	"time"
)

func TestImageCACertificatesAreTheNamedFileElseGosPinnedRoots(t *testing.T) {
	cert := selfSigned(t)
	files := map[string][]byte{
		"/flag.pem":  cert,
		"/empty.pem": []byte("# no certificates here\n"),
	}
	read := func(p string) ([]byte, error) {
		if b, ok := files[p]; ok {
			return b, nil
		}
		return nil, fs.ErrNotExist
	}
	fallback := func() caCerts { return caCerts{pem: []byte("fallback"), source: "fallback"} }
	cases := map[string]struct {
		flag    string
		want    string // substring of the source
		wantErr string
	}{
		"NamedFile":         {flag: "/flag.pem", want: "/flag.pem (-ca-certs)"},
		"NoFileNamed":       {want: "fallback"},
		"MissingNamedFile":  {flag: "/typo.pem", wantErr: "(-ca-certs)"},
		"NamedFileWithNone": {flag: "/empty.pem", wantErr: "holds no PEM certificate"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := findCACerts(tc.flag, read, fallback)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("findCACerts() = %q, %v; want an error with %q", got.source, err, tc.wantErr)
				}
				return
			}
			if err != nil || !strings.Contains(got.source, tc.want) {
				t.Fatalf("findCACerts() = %q, %v; want a source with %q", got.source, err, tc.want)
			}
			if got.source != "fallback" && !bytes.Equal(got.pem, cert) {
				t.Errorf("findCACerts() put %q in the image, want the file's certificate", got.pem)
			}
		})
	}
}

// TestFallbackRootsAreParsablePEM checks what every image carries unless
// -ca-certs names a bundle: Mozilla's roots, each a PEM certificate that Go
// parses, without the ones PEM cannot constrain.
func TestFallbackRootsAreParsablePEM(t *testing.T) {
	got := fallbackCACerts()
	n := countCerts(got.pem)
	if n < 100 {
		t.Fatalf("the fallback bundle has %d certificates, want Mozilla's (over 100)", n)
	}
	if pool := x509.NewCertPool(); !pool.AppendCertsFromPEM(got.pem) {
		t.Fatal("crypto/x509 reads no certificate from the fallback bundle")
	}
	if want := fmt.Sprintf("%d from Go's fallback roots, %s v", n, fallbackModule); !strings.HasPrefix(got.source, want) {
		t.Errorf("source = %q, want it to start with %q", got.source, want)
	}
	t.Log(got.source)
}

func selfSigned(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test root"},
		NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}
