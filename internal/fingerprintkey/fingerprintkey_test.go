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

package fingerprintkey

import (
	"bytes"
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

const ns = "crossplane-system"

func keySecret(key []byte) *corev1.Secret {
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: SecretName}, Data: map[string][]byte{DataKey: key}}
}

func stored(t *testing.T, kube client.Client) []byte {
	t.Helper()
	s := &corev1.Secret{}
	if err := kube.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: SecretName}, s); err != nil {
		t.Fatal(err)
	}
	return s.Data[DataKey]
}

func TestTheFirstStartMakesTheKeyAndEveryLaterOneReadsIt(t *testing.T) {
	ctx := context.Background()
	kube := fake.NewClientBuilder().Build()
	first := &Source{Kube: kube, Reader: kube, Namespace: ns}
	k, err := first.Key(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(k) != Size || bytes.Equal(k, make([]byte, Size)) {
		t.Fatalf("the new key has %d bytes (%x), want %d random ones", len(k), k, Size)
	}
	if !bytes.Equal(stored(t, kube), k) {
		t.Errorf("the Secret holds another key than the one handed out")
	}
	// A restart, or another replica: the same key, so no fingerprint changes.
	again, err := (&Source{Kube: kube, Reader: kube, Namespace: ns}).Key(ctx)
	if err != nil || !bytes.Equal(again, k) {
		t.Errorf("a second Source got %x (%v), want the stored key", again, err)
	}
	other, err := (&Source{Kube: fake.NewClientBuilder().Build(), Reader: kube, Namespace: ns}).Key(ctx)
	if err != nil || !bytes.Equal(other, k) {
		t.Errorf("a Source that finds the Secret got %x (%v), want its key", other, err)
	}
}

func TestAReplicaThatLosesTheRaceUsesTheWinnersKey(t *testing.T) {
	winner := bytes.Repeat([]byte{7}, Size)
	kube := fake.NewClientBuilder().WithInterceptorFuncs(interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, o client.Object, opts ...client.CreateOption) error {
			// Another replica created the Secret after our read found none.
			if err := c.Create(ctx, keySecret(winner)); err != nil {
				return err
			}
			return c.Create(ctx, o, opts...)
		},
	}).Build()
	k, err := (&Source{Kube: kube, Reader: kube, Namespace: ns}).Key(context.Background())
	if err != nil || !bytes.Equal(k, winner) {
		t.Errorf("Key() = %x, %v; want the winner's key", k, err)
	}
}

func TestAKeyTooShortIsRefusedNotUsed(t *testing.T) {
	kube := fake.NewClientBuilder().WithObjects(keySecret([]byte("short"))).Build()
	_, err := (&Source{Kube: kube, Reader: kube, Namespace: ns}).Key(context.Background())
	if err == nil || !strings.Contains(err.Error(), "holds no key of 32 bytes") {
		t.Fatalf("Key() error = %v, want the Secret's key refused", err)
	}
	if strings.Contains(err.Error(), "short") {
		t.Errorf("the error %q shows the Secret's value", err)
	}
	if !bytes.Equal(stored(t, kube), []byte("short")) {
		t.Errorf("the Secret was overwritten")
	}
}

func TestAFailureIsRetriedOnTheNextCall(t *testing.T) {
	fail := true
	kube := fake.NewClientBuilder().WithInterceptorFuncs(interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, o client.Object, opts ...client.CreateOption) error {
			if fail {
				return context.DeadlineExceeded
			}
			return c.Create(ctx, o, opts...)
		},
	}).Build()
	s := &Source{Kube: kube, Reader: kube, Namespace: ns}
	if _, err := s.Key(context.Background()); err == nil || !strings.Contains(err.Error(), "cannot create the fingerprint key Secret "+ns+"/"+SecretName) {
		t.Fatalf("Key() error = %v, want the create's failure", err)
	}
	fail = false
	k, err := s.Key(context.Background())
	if err != nil || !bytes.Equal(stored(t, kube), k) {
		t.Errorf("Key() after the failure = %x, %v; want the key it stored", k, err)
	}
}
