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

package managedkind

import (
	"context"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
)

// SecretObject is what a kind that reads Secrets watches.
func SecretObject() client.Object { return &corev1.Secret{} }

// ReadersOfSecret enqueues the resources of kind gvk that read a Secret
// when it changes, found through the field index field ("namespace/name"
// of every Secret a resource reads), so a rotated secret reaches Coder
// before the next poll. A failed list enqueues nothing: the next poll
// catches up.
func ReadersOfSecret(kube client.Reader, s *runtime.Scheme, gvk schema.GroupVersionKind, field string) (handler.EventHandler, error) {
	listGVK := gvk.GroupVersion().WithKind(gvk.Kind + "List")
	if _, err := newList(s, listGVK); err != nil {
		return nil, err
	}
	return handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, secret client.Object) []reconcile.Request {
		l, err := newList(s, listGVK)
		if err != nil {
			return nil
		}
		if err := kube.List(ctx, l, client.MatchingFields{field: secret.GetNamespace() + "/" + secret.GetName()}); err != nil {
			return nil
		}
		items, err := apimeta.ExtractList(l)
		if err != nil {
			return nil
		}
		out := make([]reconcile.Request, 0, len(items))
		for _, it := range items {
			if o, ok := it.(client.Object); ok {
				out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: o.GetName()}})
			}
		}
		return out
	}), nil
}

func newList(s *runtime.Scheme, gvk schema.GroupVersionKind) (client.ObjectList, error) {
	o, err := s.New(gvk)
	if err != nil {
		return nil, errors.Wrap(err, errKindNotScheme)
	}
	l, ok := o.(client.ObjectList)
	if !ok {
		return nil, errors.Errorf("%s is not a list", gvk)
	}
	return l, nil
}

// SecretValue is the value of the Secret key ref, read through kube, with
// surrounding white space trimmed; field names the spec field in every
// error, which never holds the value.
func SecretValue(ctx context.Context, kube client.Reader, field string, ref common.SecretKeySelector) (string, error) {
	s := &corev1.Secret{}
	if err := kube.Get(ctx, types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}, s); err != nil {
		return "", errors.Wrapf(err, "cannot read %s: cannot get Secret %s/%s", field, ref.Namespace, ref.Name)
	}
	raw, ok := s.Data[ref.Key]
	if !ok {
		return "", errors.Errorf("cannot read %s: Secret %s/%s has no key %q", field, ref.Namespace, ref.Name, ref.Key)
	}
	v := strings.TrimSpace(string(raw))
	if v == "" {
		return "", errors.Errorf("cannot read %s: key %q of Secret %s/%s is empty", field, ref.Key, ref.Namespace, ref.Name)
	}
	return v, nil
}
