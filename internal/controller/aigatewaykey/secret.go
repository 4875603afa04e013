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

package aigatewaykey

import (
	"bytes"
	"context"
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/crossplane-contrib/provider-coder/internal/deletion"
)

const (
	errReadSecret       = "cannot read the connection Secret"
	errPublishSecret    = "cannot publish the new key to the connection Secret"
	errSecretNotOurs    = "the connection Secret is controlled by another object"
	errCommitRotation   = "cannot record the new key as the external name"
	errConnectionSecret = "cannot build the connection Secret"
)

// readSecret reads k's connection Secret past the cache: a rotation decides
// on which key it holds, and a stale read would discard a published key.
// It returns nil when k writes no Secret, or its Secret does not exist or is
// not controlled by k.
func (e *external) readSecret(ctx context.Context, k Resource) (*corev1.Secret, error) {
	nn, ok := deletion.ConnectionSecret(k)
	if !ok {
		return nil, nil
	}
	s := &corev1.Secret{}
	if err := e.reader.Get(ctx, nn, s); err != nil {
		if kerrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, errors.Wrap(err, errReadSecret)
	}
	if !metav1.IsControlledBy(s, k) {
		return nil, nil
	}
	return s, nil
}

// published is the id of the key whose plaintext k's connection Secret
// holds; empty when it holds none. The cache answers the usual case, a
// Secret holding the committed key; anything else is read past the cache,
// because a stale read would replace a published key.
func (e *external) published(ctx context.Context, k Resource, keys []ownKey, id string) (string, error) {
	nn, ok := deletion.ConnectionSecret(k)
	if !ok {
		return "", nil
	}
	cached := &corev1.Secret{}
	if err := e.kube.Get(ctx, nn, cached); err == nil && metav1.IsControlledBy(cached, k) &&
		len(keys) == 1 && holds(cached.Data, keys) == id {
		return id, nil
	}
	s, err := e.readSecret(ctx, k)
	if err != nil || s == nil {
		return "", err
	}
	return holds(s.Data, keys), nil
}

// holds is the id of the one of keys whose plaintext data holds: the id
// beside the plaintext, when the plaintext begins with that key's prefix in
// Coder (Coder's keys always do). Empty when the plaintext is missing, or
// is not that of the key the id names: a Secret deleted or edited by hand,
// or overwritten by a sync, holds no key any replica can use.
func holds(data map[string][]byte, keys []ownKey) string {
	id, plaintext := string(data[ConnectionID]), data[ConnectionKey]
	for _, c := range keys {
		if c.ID.String() == id && c.KeyPrefix != "" && bytes.HasPrefix(plaintext, []byte(c.KeyPrefix)) {
			return id
		}
	}
	return ""
}

// publishedAmong returns the id of the one of keys whose plaintext k's
// connection Secret holds, read past the cache; empty when there is none.
// Only a key the Secret holds is known to k's consumers: any other key of
// k without an external name has a plaintext nobody holds.
func (e *external) publishedAmong(ctx context.Context, k Resource, keys []ownKey) string {
	if len(keys) == 0 {
		return ""
	}
	s, err := e.readSecret(ctx, k)
	if err != nil || s == nil {
		return ""
	}
	id := holds(s.Data, keys)
	for _, c := range keys {
		if c.derived && c.ID.String() == id {
			return id
		}
	}
	return ""
}

// keepPublished adds to details the values k's connection Secret already
// holds that details lack. The publisher compares details with the cached
// Secret and merges them into the Secret: without the values it lacks, it
// would patch the Secret on every observe.
//
// The plaintext is the exception: the cache may lag a rotation, so the
// cached plaintext may be the retiring key's while details name the new one,
// and merging that pair would overwrite the new key's plaintext, which
// exists nowhere else. Details carry the cached plaintext only beside the id
// it was cached with, when it is that key's (keepsPlaintext). Otherwise they
// carry none, and the merge leaves the Secret's own plaintext as it is.
func (e *external) keepPublished(ctx context.Context, k Resource, details managed.ConnectionDetails) {
	nn, ok := deletion.ConnectionSecret(k)
	if !ok {
		return
	}
	s := &corev1.Secret{}
	if err := e.kube.Get(ctx, nn, s); err != nil || !metav1.IsControlledBy(s, k) {
		return
	}
	for key, v := range s.Data {
		if _, set := details[key]; !set && key != ConnectionKey {
			details[key] = v
		}
	}
	if keepsPlaintext(s.Data, details) {
		details[ConnectionKey] = s.Data[ConnectionKey]
	}
}

// keepsPlaintext reports whether the plaintext of cached may go into
// details: cached pairs it with the id details publish, and it begins with
// the prefix details publish for that id. A key's plaintext never changes,
// so such a pair is right however stale the cache is.
func keepsPlaintext(cached map[string][]byte, details managed.ConnectionDetails) bool {
	id, prefix := details[ConnectionID], details[ConnectionKeyPrefix]
	return len(id) > 0 && len(prefix) > 0 && bytes.Equal(cached[ConnectionID], id) &&
		bytes.HasPrefix(cached[ConnectionKey], prefix)
}

// secretWritable refuses to go on while k's connection Secret is
// controlled by another object (an earlier incarnation of the same name,
// not yet garbage collected): a key created or replaced now could not be
// published, and its plaintext would be lost.
func (e *external) secretWritable(ctx context.Context, k Resource) error {
	nn, ok := deletion.ConnectionSecret(k)
	if !ok || meta.WasDeleted(k) {
		return nil
	}
	s := &corev1.Secret{}
	if err := e.kube.Get(ctx, nn, s); err != nil {
		return nil //nolint:nilerr // Missing or unreadable: publishing reports it.
	}
	if metav1.GetControllerOf(s) != nil && !metav1.IsControlledBy(s, k) {
		return errors.Errorf("%s: %s; no key is created until it is gone", errSecretNotOurs, nn)
	}
	return nil
}

// publish merges details into k's connection Secret, creating it if need
// be. A nil value removes that key from the Secret.
//
// The client writes the Secret itself, where the reconciler would publish
// returned ConnectionDetails, only within a rotation's Update: the
// reconciler publishes after Update returns and persists no metadata then,
// but the external name may move to a new key (commit) only once the Secret
// holds its plaintext, which exists nowhere else.
func (e *external) publish(ctx context.Context, k Resource, details managed.ConnectionDetails) error {
	nn, ok := deletion.ConnectionSecret(k)
	if !ok {
		return nil
	}
	cur := &corev1.Secret{}
	err := e.reader.Get(ctx, nn, cur)
	if kerrors.IsNotFound(err) {
		s, err := e.newSecret(k)
		if err != nil {
			return err
		}
		s.Data = map[string][]byte{}
		for key, v := range details {
			if v != nil {
				s.Data[key] = v
			}
		}
		return errors.Wrap(e.kube.Create(ctx, s), errPublishSecret)
	}
	if err != nil {
		return errors.Wrap(err, errReadSecret)
	}
	if !metav1.IsControlledBy(cur, k) {
		return errors.New(errSecretNotOurs)
	}
	body, err := json.Marshal(map[string]any{"data": map[string][]byte(details)})
	if err != nil {
		return errors.Wrap(err, errPublishSecret)
	}
	return errors.Wrap(e.kube.Patch(ctx, cur, client.RawPatch(types.MergePatchType, body)), errPublishSecret)
}

func (e *external) newSecret(k Resource) (*corev1.Secret, error) {
	gvk, err := apiutil.GVKForObject(k, e.scheme)
	if err != nil {
		return nil, errors.Wrap(err, errConnectionSecret)
	}
	switch o := k.(type) {
	case resource.LocalConnectionSecretOwner:
		return resource.LocalConnectionSecretFor(o, gvk), nil
	case resource.ConnectionSecretOwner:
		return resource.ConnectionSecretFor(o, gvk), nil
	}
	return nil, errors.New(errConnectionSecret)
}

// commit records id as k's external name and the rotate annotation's value
// as answered. The reconciler persists only status after an update, so
// this patches the metadata itself and carries the new resource version
// over, so the status update that follows does not conflict.
func (e *external) commit(ctx context.Context, k Resource, id string) error {
	ann := map[string]any{meta.AnnotationKeyExternalName: id}
	requested, ok := k.GetAnnotations()[RotateAnnotation]
	if ok {
		ann[RotatedAnnotation] = requested
	}
	body, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": ann}})
	if err != nil {
		return errors.Wrap(err, errCommitRotation)
	}
	obj, _ := k.DeepCopyObject().(client.Object)
	if err := e.kube.Patch(ctx, obj, client.RawPatch(types.MergePatchType, body)); err != nil {
		return errors.Wrap(err, errCommitRotation)
	}
	k.SetResourceVersion(obj.GetResourceVersion())
	a := k.GetAnnotations()
	a[meta.AnnotationKeyExternalName] = id
	if ok {
		a[RotatedAnnotation] = requested
	}
	k.SetAnnotations(a)
	return nil
}

func secretData(s *corev1.Secret) map[string][]byte {
	if s == nil {
		return nil
	}
	return s.Data
}
