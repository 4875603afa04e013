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

package controlplane

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"time"
)

// certValidity is how long generated certificates are valid. A control plane
// lives for one test binary; a day leaves room for a debugger session.
const certValidity = 24 * time.Hour

// authority is a throwaway certificate authority created at Start. It signs
// the API server's serving certificate and every client certificate, so one
// CA file serves as both --client-ca-file and the clients' trust root.
type authority struct {
	cert    *x509.Certificate
	certPEM []byte
	key     crypto.Signer
}

// keyPair is a PEM-encoded certificate and private key.
type keyPair struct {
	certPEM []byte
	keyPEM  []byte
}

// newKey returns a P-256 key: unlike RSA it is generated in microseconds,
// which keeps Start fast, and every component accepts it.
func newKey() (*ecdsa.PrivateKey, error) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("cannot generate private key: %w", err)
	}
	return k, nil
}

func serialNumber() (*big.Int, error) {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return nil, fmt.Errorf("cannot generate certificate serial number: %w", err)
	}
	return n, nil
}

func newAuthority() (*authority, error) {
	key, err := newKey()
	if err != nil {
		return nil, err
	}
	serial, err := serialNumber()
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "provider-coder-test-ca"},
		NotBefore:             now.Add(-time.Minute),
		NotAfter:              now.Add(certValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, fmt.Errorf("cannot create CA certificate: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("cannot parse CA certificate: %w", err)
	}
	return &authority{cert: cert, certPEM: pemBlock("CERTIFICATE", der), key: key}, nil
}

// sign issues a certificate for tmpl, filling in the fields every leaf
// certificate shares.
func (a *authority) sign(tmpl *x509.Certificate) (keyPair, error) {
	key, err := newKey()
	if err != nil {
		return keyPair{}, err
	}
	serial, err := serialNumber()
	if err != nil {
		return keyPair{}, err
	}
	now := time.Now()
	tmpl.SerialNumber = serial
	tmpl.NotBefore = now.Add(-time.Minute)
	tmpl.NotAfter = now.Add(certValidity)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, tmpl, a.cert, key.Public(), a.key)
	if err != nil {
		return keyPair{}, fmt.Errorf("cannot sign certificate: %w", err)
	}
	keyPEM, err := privateKeyPEM(key)
	if err != nil {
		return keyPair{}, err
	}
	return keyPair{certPEM: pemBlock("CERTIFICATE", der), keyPEM: keyPEM}, nil
}

// servingCert issues the API server's certificate for the loopback address.
func (a *authority) servingCert() (keyPair, error) {
	return a.sign(&x509.Certificate{
		Subject:     pkix.Name{CommonName: "kube-apiserver"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:    []string{"localhost"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
	})
}

// clientCert issues a certificate that the API server's x509 authenticator
// maps to user (the common name) in groups (the organizations).
func (a *authority) clientCert(user string, groups ...string) (keyPair, error) {
	return a.sign(&x509.Certificate{
		Subject:     pkix.Name{CommonName: user, Organization: groups},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
}

func privateKeyPEM(key crypto.Signer) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("cannot marshal private key: %w", err)
	}
	return pemBlock("PRIVATE KEY", der), nil
}

func publicKeyPEM(key crypto.PublicKey) ([]byte, error) {
	der, err := x509.MarshalPKIXPublicKey(key)
	if err != nil {
		return nil, fmt.Errorf("cannot marshal public key: %w", err)
	}
	return pemBlock("PUBLIC KEY", der), nil
}

func pemBlock(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}
