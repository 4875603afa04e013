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

package writes

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

func cm(rv string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a", ResourceVersion: rv}}
}

func TestWritesBehind(t *testing.T) {
	cases := map[string]struct {
		tracked bool
		wrote   []string
		cached  string
		want    bool
	}{
		"nothing written":                   {tracked: true, cached: "5", want: false},
		"cache older than our write":        {tracked: true, wrote: []string{"10"}, cached: "9", want: true},
		"cache holds our write":             {tracked: true, wrote: []string{"10"}, cached: "10", want: false},
		"cache past our write":              {tracked: true, wrote: []string{"10"}, cached: "12", want: false},
		"the last of several writes":        {tracked: true, wrote: []string{"10", "12", "11"}, cached: "11", want: true},
		"a kind whose writes are not noted": {tracked: false, wrote: []string{"10"}, cached: "9", want: false},
		"a version that is not a number":    {tracked: true, wrote: []string{"10"}, cached: "x", want: false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w := NewWrites()
			if tc.tracked {
				w.Track(&corev1.ConfigMap{})
			}
			for _, rv := range tc.wrote {
				w.wrote(cm(rv))
			}
			if got := w.Behind(cm(tc.cached)); got != tc.want {
				t.Errorf("Behind = %t, want %t", got, tc.want)
			}
		})
	}
}

func TestWritesForgetsAWriteTheCacheHolds(t *testing.T) {
	w := NewWrites()
	w.Track(&corev1.ConfigMap{})
	w.wrote(cm("10"))
	if w.Behind(cm("10")) || len(w.last) != 0 {
		t.Errorf("a write the cache holds is still remembered: %v", w.last)
	}
}

// The client notes the version the API server gave each write, and a
// reconcile waits until the cache holds it.
func TestAReconcileWaitsForTheCacheToHoldOurWrite(t *testing.T) {
	w := NewWrites()
	w.Track(&corev1.ConfigMap{})
	api := fake.NewClientBuilder().WithObjects(cm("")).Build()
	c := w.Client(api)
	o := &corev1.ConfigMap{}
	if err := c.Get(context.Background(), types.NamespacedName{Namespace: "ns", Name: "a"}, o); err != nil {
		t.Fatal(err)
	}
	stale := o.DeepCopy()
	o.Data = map[string]string{"k": "v"}
	if err := c.Update(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	ran := 0
	inner := reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) {
		ran++
		return reconcile.Result{}, nil
	})
	cache := &fixedReader{o: stale}
	r := &freshReconciler{name: "test", inner: inner, cache: cache, newObj: func() client.Object { return &corev1.ConfigMap{} }, w: w}
	req := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "a"}}

	res, err := r.Reconcile(context.Background(), req)
	if err != nil || ran != 0 || res.RequeueAfter != behindRetry {
		t.Errorf("from a copy older than our update: ran %d times, result %+v, err %v; want not run, back in %s", ran, res, err, behindRetry)
	}
	cache.o = o
	if _, err := r.Reconcile(context.Background(), req); err != nil || ran != 1 {
		t.Errorf("from a copy holding our update: ran %d times, err %v; want run once", ran, err)
	}
}

type fixedReader struct {
	client.Reader
	o client.Object
}

func (f *fixedReader) Get(_ context.Context, _ client.ObjectKey, o client.Object, _ ...client.GetOption) error {
	f.o.(*corev1.ConfigMap).DeepCopyInto(o.(*corev1.ConfigMap))
	return nil
}

// crossplane-runtime writes status at the end of every reconcile; the
// client sends only the updates that change it.
func TestAStatusUpdateThatChangesNothingIsNotSent(t *testing.T) {
	started := time.Unix(1_700_000_000, 0)
	cases := map[string]struct {
		tracked bool
		edit    func(*corev1.Pod)
		want    int
	}{
		"unchanged":                  {tracked: true, edit: func(*corev1.Pod) {}, want: 0},
		"changed":                    {tracked: true, edit: func(p *corev1.Pod) { p.Status.Message = "new" }, want: 1},
		"a kind not reconciled":      {tracked: false, edit: func(*corev1.Pod) {}, want: 1},
		"a spec change is no status": {tracked: true, edit: func(p *corev1.Pod) { p.Spec.NodeName = "n" }, want: 0},
		// The API server stores a time to the second: a time set again
		// from a finer clock within that second changes nothing stored.
		"a time within its second": {tracked: true, edit: func(p *corev1.Pod) { p.Status.StartTime = &metav1.Time{Time: started.Add(500 * time.Millisecond)} }, want: 0},
		"a time a second later":    {tracked: true, edit: func(p *corev1.Pod) { p.Status.StartTime = &metav1.Time{Time: started.Add(time.Second)} }, want: 1},
		"a time removed":           {tracked: true, edit: func(p *corev1.Pod) { p.Status.StartTime = nil }, want: 1},
		"empty for missing":        {tracked: true, edit: func(p *corev1.Pod) { p.Status.Conditions = []corev1.PodCondition{} }, want: 0},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}, Status: corev1.PodStatus{Message: "old", StartTime: &metav1.Time{Time: started}}}
			sent := 0
			api := fake.NewClientBuilder().WithObjects(pod).WithStatusSubresource(pod).WithInterceptorFuncs(interceptor.Funcs{
				SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, o client.Object, opts ...client.SubResourceUpdateOption) error {
					sent++
					return c.SubResource(sub).Update(ctx, o, opts...)
				},
			}).Build()
			w := NewWrites()
			if tc.tracked {
				w.Track(&corev1.Pod{})
			}
			c := w.Client(api)
			got := &corev1.Pod{}
			if err := c.Get(context.Background(), client.ObjectKeyFromObject(pod), got); err != nil {
				t.Fatal(err)
			}
			tc.edit(got)
			if err := c.Status().Update(context.Background(), got); err != nil {
				t.Fatal(err)
			}
			if sent != tc.want {
				t.Errorf("status updates sent = %d, want %d", sent, tc.want)
			}
		})
	}
}
