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

package activation

import (
	"context"
	"reflect"
	"sync"

	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-coder/apis"
	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
)

// gated maps the Go types of every gated kind's object and list to the
// kind.
var gated = sync.OnceValue(func() map[reflect.Type]schema.GroupVersionKind {
	m := map[reflect.Type]schema.GroupVersionKind{
		reflect.TypeFor[*clusterv1alpha1.CleanupRecord]():     CleanupRecord,
		reflect.TypeFor[*clusterv1alpha1.CleanupRecordList](): CleanupRecord,
	}
	for _, k := range apis.ManagedKinds() {
		m[reflect.TypeOf(k.New())] = k.GVK
		m[reflect.TypeOf(k.NewList())] = k.GVK
	}
	return m
})

// absent says whether o is of a gated kind that does not exist.
func (k *Kinds) absent(o any) bool {
	gvk, ok := gated()[reflect.TypeOf(o)]
	return ok && !k.Exists(gvk)
}

// Reader returns r, except that a gated kind that does not exist has no
// objects: its lists are empty and its gets not found. A kind whose CRD is
// not served has none, and reading it through r would fail on the kind.
func (k *Kinds) Reader(r client.Reader) client.Reader {
	if k == nil || k.all {
		return r
	}
	return &reader{Reader: r, kinds: k}
}

// Client returns c, reading as Reader does.
func (k *Kinds) Client(c client.Client) client.Client {
	if k == nil || k.all {
		return c
	}
	return &kubeClient{Client: c, r: reader{Reader: c, kinds: k}}
}

type reader struct {
	client.Reader
	kinds *Kinds
}

func (r *reader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if r.kinds.absent(obj) {
		return kerrors.NewNotFound(schema.GroupResource{Group: gated()[reflect.TypeOf(obj)].Group}, key.Name)
	}
	return r.Reader.Get(ctx, key, obj, opts...)
}

func (r *reader) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	if r.kinds.absent(list) {
		return meta.SetList(list, nil)
	}
	return r.Reader.List(ctx, list, opts...)
}

type kubeClient struct {
	client.Client
	r reader
}

func (c *kubeClient) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	return c.r.Get(ctx, key, obj, opts...)
}

func (c *kubeClient) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	return c.r.List(ctx, list, opts...)
}
