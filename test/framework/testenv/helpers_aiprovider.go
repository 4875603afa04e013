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

package testenv

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

var providerSeq atomic.Int64

// UniqueProviderName returns a Coder provider name no other scenario of this
// run uses: every scenario shares one fake Coder, where names are global.
func UniqueProviderName(prefix string) string {
	return fmt.Sprintf("%s-e2e%d", prefix, providerSeq.Add(1))
}

// Secret creates a Secret with the given string data.
func (e *Env) Secret(t *testing.T, ns, name string, data map[string]string) *corev1.Secret {
	t.Helper()
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: map[string][]byte{}}
	for k, v := range data {
		s.Data[k] = []byte(v)
	}
	e.Create(t, s)
	return s
}

// LiveProvider returns the fake Coder's live (not soft-deleted) provider
// named name.
func (e *Env) LiveProvider(name string) (fakecoder.ProviderRow, bool) {
	for _, p := range e.Coder.Providers(false) {
		if p.Name == name {
			return p, true
		}
	}
	return fakecoder.ProviderRow{}, false
}

// ProviderRows returns every provider row named name, soft-deleted ones too.
func (e *Env) ProviderRows(name string) []fakecoder.ProviderRow {
	var out []fakecoder.ProviderRow
	for _, p := range e.Coder.Providers(true) {
		if p.Name == name {
			out = append(out, p)
		}
	}
	return out
}

// ProviderRowByID returns the provider row with the id, soft-deleted or not.
func (e *Env) ProviderRowByID(id string) (fakecoder.ProviderRow, bool) {
	for _, p := range e.Coder.Providers(true) {
		if p.ID.String() == id {
			return p, true
		}
	}
	return fakecoder.ProviderRow{}, false
}

// NamespaceEvents returns the Events of one namespace.
func (e *Env) NamespaceEvents(t *testing.T, ns string) []corev1.Event {
	t.Helper()
	l := &corev1.EventList{}
	if err := e.Kube.List(context.Background(), l, inNamespace(ns)); err != nil {
		t.Fatalf("cannot list events: %v", err)
	}
	return l.Items
}

// SameKeys reports whether two key lists hold the same keys, in any order.
func SameKeys(a, b []string) bool {
	return slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}
