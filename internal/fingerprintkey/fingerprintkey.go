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

// Package fingerprintkey owns the provider's fingerprint key: the secret
// an AIProvider's credentials fingerprint is keyed with (HMAC-SHA256), so a
// fingerprint in status cannot be tested against guessed credentials by
// anyone who reads status. The key lives in a Secret in the provider's own
// namespace, which the provider creates on first use when it is missing:
// it survives restarts, and every replica uses the same one, so a
// fingerprint changes only when the credentials do. It must not log the
// key or put it in an error.
package fingerprintkey

import (
	"context"
	"crypto/rand"
	"sync"

	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
)

// SecretName is the name of the Secret that holds the key, in the
// provider's namespace; DataKey is its data key.
const (
	SecretName = "provider-coder-fingerprint-key"
	DataKey    = "key"
)

// Size is the length of a key the provider makes, and the least it accepts.
const Size = 32

const (
	errFmtGet    = "cannot read the fingerprint key Secret %s/%s"
	errFmtCreate = "cannot create the fingerprint key Secret %s/%s; the provider keeps it in its own namespace (POD_NAMESPACE, or --namespace)"
	errFmtShort  = "the fingerprint key Secret %s/%s holds no key of %d bytes or more under %q; delete it and the provider makes a new one (every AIProvider then sends its credentials to Coder once)"
)

// A Source hands out the fingerprint key, reading its Secret once and
// creating it when it is missing. It is safe for concurrent use.
type Source struct {
	// Kube creates the Secret; Reader reads it past the cache, so a Secret
	// another replica created a moment ago is found, not overwritten.
	Kube      client.Client
	Reader    client.Reader
	Namespace string

	mu  sync.Mutex
	key []byte
}

// Key returns the fingerprint key; callers must not modify it. A failure
// is not remembered: the next call tries again.
func (s *Source) Key(ctx context.Context) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.key == nil {
		k, err := s.load(ctx)
		if err != nil {
			return nil, err
		}
		s.key = k
	}
	return s.key, nil
}

// load reads the key from its Secret, creating the Secret with a new
// random key when there is none. When another replica creates it first,
// its key is the one.
func (s *Source) load(ctx context.Context) ([]byte, error) {
	k, err := s.read(ctx)
	if err == nil || !kerrors.IsNotFound(err) {
		return k, err
	}
	k = make([]byte, Size)
	_, _ = rand.Read(k) // never fails, see crypto/rand.Read
	sec := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: s.Namespace, Name: SecretName,
			Labels: map[string]string{"app.kubernetes.io/managed-by": "provider-coder"},
		},
		Type: corev1.SecretTypeOpaque,
		Data: map[string][]byte{DataKey: k},
	}
	err = s.Kube.Create(ctx, sec)
	switch {
	case err == nil:
		return k, nil
	case kerrors.IsAlreadyExists(err):
		return s.read(ctx)
	}
	return nil, errors.Wrapf(err, errFmtCreate, s.Namespace, SecretName)
}

// read returns the key the Secret holds.
func (s *Source) read(ctx context.Context) ([]byte, error) {
	sec := &corev1.Secret{}
	if err := s.Reader.Get(ctx, types.NamespacedName{Namespace: s.Namespace, Name: SecretName}, sec); err != nil {
		return nil, errors.Wrapf(err, errFmtGet, s.Namespace, SecretName)
	}
	k := sec.Data[DataKey]
	if len(k) < Size {
		return nil, errors.Errorf(errFmtShort, s.Namespace, SecretName, Size, DataKey)
	}
	return k, nil
}
