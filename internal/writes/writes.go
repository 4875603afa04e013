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

// Package writes remembers the provider's own writes of the objects it
// reconciles, so that a reconcile never starts from a cached copy older than
// them: Writes.Client notes each write, Writes.Reconciler holds a reconcile
// back while the cache is behind. It must not decide anything about the
// objects themselves.
package writes

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/conversion"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane-contrib/provider-coder/internal/metrics"
)

// Writes remembers the resource version of the provider's own last write of
// each object, so that a reconcile never starts from a cached copy older
// than it. The cache lags the API server; under load by more than a second.
// A reconcile from an older copy decides on a state the provider has
// already moved past (a key without the external name its create just
// wrote) and its writes fail with a conflict: it costs Coder and Kubernetes
// requests for nothing and is retried with backoff. Kubernetes' own
// controllers keep such "expectations" for the same reason.
type Writes struct {
	mu      sync.Mutex
	tracked map[string]bool
	last    map[string]uint64
}

// NewWrites returns an empty record of writes.
func NewWrites() *Writes { return &Writes{tracked: map[string]bool{}, last: map[string]uint64{}} }

// Track notes the writes of objects of o's Go type, and only those.
func (w *Writes) Track(o client.Object) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.tracked[fmt.Sprintf("%T", o)] = true
}

func (w *Writes) isTracked(o client.Object) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.tracked[fmt.Sprintf("%T", o)]
}

// unchanged reports whether the cache holds o at o's version with o's
// status. An object without a typed Status field (unstructured) is never
// taken for unchanged: its update is sent.
func (s *writingStatus) unchanged(ctx context.Context, o client.Object) bool {
	mine := statusOf(o)
	if !mine.IsValid() {
		return false
	}
	cached, ok := o.DeepCopyObject().(client.Object)
	if !ok || s.reader.Get(ctx, client.ObjectKeyFromObject(o), cached) != nil || cached.GetResourceVersion() != o.GetResourceVersion() {
		return false
	}
	return statusEqual.DeepEqual(mine.Interface(), statusOf(cached).Interface())
}

// statusOf is the Status field of the struct o points to, or the zero
// Value when it has none.
func statusOf(o client.Object) reflect.Value {
	v := reflect.ValueOf(o)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return reflect.Value{}
	}
	return v.Elem().FieldByName("Status")
}

// statusEqual compares two statuses as the API server stores them, without
// converting each to JSON first (a tenth of a poll's CPU when it did): a
// metav1.Time to the second, as its JSON holds it, so a time set from a
// clock finer than that compares equal to the stored one; quantities by
// value; empty and missing values alike (equality.Semantic's rules).
var statusEqual = conversion.EqualitiesOrDie(
	func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 },
	func(a, b metav1.MicroTime) bool {
		return a.UTC().Truncate(time.Microsecond).Equal(b.UTC().Truncate(time.Microsecond))
	},
	func(a, b metav1.Time) bool { return a.Unix() == b.Unix() },
)

func writeKey(o client.Object) string {
	return fmt.Sprintf("%T %s/%s", o, o.GetNamespace(), o.GetName())
}

// versionOf is o's resource version as a number. The API server's versions
// are etcd revisions, which only grow; a version that is not a number is
// never compared.
func versionOf(o client.Object) (uint64, bool) {
	v, err := strconv.ParseUint(o.GetResourceVersion(), 10, 64)
	return v, err == nil
}

// wrote notes a successful write of o, which carries the version the API
// server gave it.
func (w *Writes) wrote(o client.Object) {
	v, ok := versionOf(o)
	if !ok {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.tracked[fmt.Sprintf("%T", o)] {
		return
	}
	if k := writeKey(o); v > w.last[k] {
		w.last[k] = v
	}
}

func (w *Writes) deleted(o client.Object) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.last, writeKey(o))
}

// Behind reports whether cached is older than the provider's last write of
// the same object. Once it is not, the write is forgotten.
func (w *Writes) Behind(cached client.Object) bool {
	v, ok := versionOf(cached)
	if !ok {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	k := writeKey(cached)
	last, seen := w.last[k]
	if !seen {
		return false
	}
	if v < last {
		return true
	}
	delete(w.last, k)
	return false
}

// Client returns c, noting in w every write c makes.
func (w *Writes) Client(c client.Client) client.Client { return &writingClient{Client: c, w: w} }

type writingClient struct {
	client.Client
	w *Writes
}

func (c *writingClient) note(o client.Object, err error) error {
	if err == nil {
		c.w.wrote(o)
	}
	return err
}

func (c *writingClient) Create(ctx context.Context, o client.Object, opts ...client.CreateOption) error {
	return c.note(o, c.Client.Create(ctx, o, opts...))
}

func (c *writingClient) Update(ctx context.Context, o client.Object, opts ...client.UpdateOption) error {
	return c.note(o, c.Client.Update(ctx, o, opts...))
}

func (c *writingClient) Patch(ctx context.Context, o client.Object, p client.Patch, opts ...client.PatchOption) error {
	return c.note(o, c.Client.Patch(ctx, o, p, opts...))
}

func (c *writingClient) Delete(ctx context.Context, o client.Object, opts ...client.DeleteOption) error {
	err := c.Client.Delete(ctx, o, opts...)
	c.w.deleted(o)
	return err
}

func (c *writingClient) Status() client.SubResourceWriter {
	return &writingStatus{SubResourceWriter: c.Client.Status(), reader: c.Client, w: c.w}
}

type writingStatus struct {
	client.SubResourceWriter
	reader client.Reader
	w      *Writes
}

// Update skips the update of a managed resource whose status is what the
// cache holds at the same version: crossplane-runtime's reconciler writes
// status at the end of every reconcile, so without this every poll of
// every resource was a write to the API server, changed or not.
func (s *writingStatus) Update(ctx context.Context, o client.Object, opts ...client.SubResourceUpdateOption) error {
	if len(opts) == 0 && s.w.isTracked(o) && s.unchanged(ctx, o) {
		return nil
	}
	err := s.SubResourceWriter.Update(ctx, o, opts...)
	if err == nil {
		s.w.wrote(o)
	}
	return err
}

func (s *writingStatus) Patch(ctx context.Context, o client.Object, p client.Patch, opts ...client.SubResourcePatchOption) error {
	err := s.SubResourceWriter.Patch(ctx, o, p, opts...)
	if err == nil {
		s.w.wrote(o)
	}
	return err
}

// behindRetry is how soon a reconcile that found the cache behind tries
// again: the cache usually catches up within milliseconds.
const behindRetry = 100 * time.Millisecond

// Reconciler runs inner, the reconciler named name of the objects newObj
// makes, only once cache holds the provider's own last write of the object;
// it tracks that type's writes (Track).
func (w *Writes) Reconciler(name string, inner reconcile.Reconciler, cache client.Reader, newObj func() client.Object) reconcile.Reconciler {
	w.Track(newObj())
	return &freshReconciler{name: name, inner: inner, cache: cache, newObj: newObj, w: w}
}

// freshReconciler runs inner only once the cache holds the provider's own
// last write of the object.
type freshReconciler struct {
	name   string
	inner  reconcile.Reconciler
	cache  client.Reader
	newObj func() client.Object
	w      *Writes
}

func (r *freshReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	o := r.newObj()
	if err := r.cache.Get(ctx, req.NamespacedName, o); err == nil && r.w.Behind(o) {
		metrics.ReconcileDeferred(r.name)
		return reconcile.Result{RequeueAfter: behindRetry}, nil
	}
	return r.inner.Reconcile(ctx, req)
}
