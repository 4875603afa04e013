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

// notServed says whether err is the API server's (or the REST mapper's)
// answer for o, of a gated kind, that it does not serve o's kind.
func notServed(o any, err error) bool {
	_, ok := gated()[reflect.TypeOf(o)]
	return ok && meta.IsNoMatchError(err)
}

// Reader returns r, except that a gated kind the API server does not serve
// has no objects: its lists are empty and its gets not found, where r
// fails on the kind. Only the API server's answer counts, never whether
// the kind's controller started yet: a kind that is served but not started
// still has its objects, and a sweep or a finalizer that took them for gone
// would delete what they name in Coder.
func Reader(r client.Reader) client.Reader { return &reader{Reader: r} }

// Client returns c, reading as Reader does.
func Client(c client.Client) client.Client {
	return &kubeClient{Client: c, r: reader{Reader: c}}
}

type reader struct{ client.Reader }

func (r *reader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	err := r.Reader.Get(ctx, key, obj, opts...)
	if notServed(obj, err) {
		gvk := gated()[reflect.TypeOf(obj)]
		return kerrors.NewNotFound(schema.GroupResource{Group: gvk.Group, Resource: gvk.Kind}, key.Name)
	}
	return err
}

func (r *reader) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	err := r.Reader.List(ctx, list, opts...)
	if notServed(list, err) {
		return meta.SetList(list, nil)
	}
	return err
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
