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
	"context"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
)

// A tracker watches the managed resources of one kind in one namespace
// and knows, at any moment, how many are Ready, how many are deleting and
// how many exist, and when each count last changed.
type tracker struct {
	mu       sync.Mutex
	ready    map[string]bool
	deleting map[string]bool
	exists   map[string]bool
	changed  chan struct{}
	stop     context.CancelFunc
}

func track(ctx context.Context, dyn dynamic.Interface, gvr schema.GroupVersionResource, ns string) *tracker {
	ctx, cancel := context.WithCancel(ctx)
	t := &tracker{ready: map[string]bool{}, deleting: map[string]bool{}, exists: map[string]bool{}, changed: make(chan struct{}, 1), stop: cancel}
	f := dynamicinformer.NewFilteredDynamicSharedInformerFactory(dyn, 0, ns, nil)
	inf := f.ForResource(gvr).Informer()
	_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { t.set(o) },
		UpdateFunc: func(_, o any) { t.set(o) },
		DeleteFunc: func(o any) {
			if d, ok := o.(cache.DeletedFinalStateUnknown); ok {
				o = d.Obj
			}
			if u, ok := o.(*unstructured.Unstructured); ok {
				t.mu.Lock()
				delete(t.ready, u.GetName())
				delete(t.deleting, u.GetName())
				delete(t.exists, u.GetName())
				t.mu.Unlock()
				t.poke()
			}
		},
	})
	f.Start(ctx.Done())
	f.WaitForCacheSync(ctx.Done())
	return t
}

func (t *tracker) set(o any) {
	u, ok := o.(*unstructured.Unstructured)
	if !ok {
		return
	}
	t.mu.Lock()
	t.exists[u.GetName()] = true
	t.ready[u.GetName()] = isReady(u)
	t.deleting[u.GetName()] = u.GetDeletionTimestamp() != nil
	t.mu.Unlock()
	t.poke()
}

func (t *tracker) poke() {
	select {
	case t.changed <- struct{}{}:
	default:
	}
}

func isReady(u *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == "Ready" {
			return m["status"] == "True"
		}
	}
	return false
}

// counts are the numbers of resources that exist, are Ready, and are
// being deleted.
func (t *tracker) counts() (exists, ready, deleting int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for n := range t.exists {
		if t.ready[n] {
			ready++
		}
		if t.deleting[n] {
			deleting++
		}
	}
	return len(t.exists), ready, deleting
}

// until waits for cond on the counts and returns when it first held, or
// the zero time when ctx ends first.
func (t *tracker) until(ctx context.Context, cond func(exists, ready, deleting int) bool) time.Time {
	for {
		if cond(t.counts()) {
			return time.Now()
		}
		select {
		case <-t.changed:
		case <-ctx.Done():
			return time.Time{}
		case <-time.After(time.Second):
		}
	}
}
