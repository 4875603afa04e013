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
	"bytes"
	"context"

	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
)

// Every poll publishes the resource's connection details. crossplane-runtime
// v2.4.0's publishers (managed.APILocalSecretPublisher, APISecretPublisher)
// read the Secret and write it only when its data differ, but they compare
// with go-cmp, which walks each byte of each value by reflection: at 5,000
// keys that comparison was a third of the provider's CPU (docs/performance.md,
// profile of the scale run). The reconciler offers no option to replace its
// publishers, so the client the reconciler is built with answers the
// publisher's read itself when nothing would be written: the Secret is
// reported missing, and the create the publisher then sends is dropped. When
// anything differs, the publisher reads the Secret as before and decides as
// before.
//
// The publisher's calls, all in resource.APIPatchingApplicator.Apply: Get of
// the Secret into the desired Secret (name, controller reference, type
// connection.crossplane.io/v1alpha1, data: the details); on NotFound, Create
// of that same object; otherwise the controllability check, the go-cmp
// comparison, and a merge patch. Nothing else the reconciler does reads or
// creates a Secret through this client.

// unchangedMark marks, on the desired Secret the publisher passes to Get,
// that the Secret already holds it; Create drops an object so marked. It is
// set only on that in-memory object and never reaches the API server.
const unchangedMark = "provider-coder.crossplane.io/connection-secret-unchanged"

// publishingManager is mgr, whose client skips the managed reconciler's
// publish of unchanged connection details.
type publishingManager struct {
	ctrl.Manager
	client client.Client
}

func (m publishingManager) GetClient() client.Client { return m.client }

func skipUnchangedPublish(mgr ctrl.Manager) ctrl.Manager {
	return publishingManager{Manager: mgr, client: publishClient{Client: mgr.GetClient()}}
}

type publishClient struct {
	client.Client
}

// Get reads obj as the wrapped client does, except the publisher's read of
// a connection Secret that already holds the details: that is reported
// missing, and obj marked so that its create is dropped.
func (c publishClient) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	desired, ok := obj.(*corev1.Secret)
	if !ok || !isDesiredConnectionSecret(desired) {
		return c.Client.Get(ctx, key, obj, opts...)
	}
	cached := &corev1.Secret{}
	if err := c.Client.Get(ctx, key, cached, opts...); err != nil {
		return err
	}
	if publishUnchanged(desired, cached) {
		metav1.SetMetaDataAnnotation(&desired.ObjectMeta, unchangedMark, "true")
		return kerrors.NewNotFound(corev1.Resource("secrets"), key.Name)
	}
	cached.DeepCopyInto(desired)
	return nil
}

// Create drops the create of a Secret Get found unchanged, and creates
// anything else.
func (c publishClient) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	if s, ok := obj.(*corev1.Secret); ok && s.Annotations[unchangedMark] == "true" {
		delete(s.Annotations, unchangedMark)
		return nil
	}
	return c.Client.Create(ctx, obj, opts...)
}

// isDesiredConnectionSecret reports whether s is what a publisher passes to
// Get: a connection Secret with its controller named. A Secret passed to be
// read into is empty.
func isDesiredConnectionSecret(s *corev1.Secret) bool {
	return s.Type == resource.SecretTypeConnection && metav1.GetControllerOf(s) != nil
}

// publishUnchanged reports whether publishing desired would write nothing
// to cached, by the publisher's own rules: cached is controlled by desired's
// controller (otherwise the publisher refuses or adopts it), and their data
// are equal, empty and missing values alike (cmpopts.EquateEmpty).
func publishUnchanged(desired, cached *corev1.Secret) bool {
	want, got := metav1.GetControllerOf(desired), metav1.GetControllerOf(cached)
	if want == nil || got == nil || want.UID != got.UID {
		return false
	}
	if len(desired.Data) != len(cached.Data) {
		return false
	}
	for k, v := range desired.Data {
		c, ok := cached.Data[k]
		if !ok || !bytes.Equal(v, c) {
			return false
		}
	}
	return true
}
