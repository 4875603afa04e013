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
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/event"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"

	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
)

func TestDesiredStateChanged(t *testing.T) {
	const (
		pending   = meta.AnnotationKeyExternalCreatePending
		failed    = meta.AnnotationKeyExternalCreateFailed
		succeeded = meta.AnnotationKeyExternalCreateSucceeded
		extName   = meta.AnnotationKeyExternalName
	)
	type obj struct {
		generation  int64
		labels      map[string]string
		annotations map[string]string
		finalizers  []string
	}
	cases := map[string]struct {
		old, new obj
		want     bool
	}{
		"nothing changed":           {obj{generation: 1}, obj{generation: 1}, false},
		"spec changed":              {obj{generation: 1}, obj{generation: 2}, true},
		"deletion bumps generation": {obj{generation: 1, finalizers: []string{"f"}}, obj{generation: 2, finalizers: []string{"f"}}, true},
		"finalizer added":           {obj{generation: 1}, obj{generation: 1, finalizers: []string{"f"}}, false},
		"label changed":             {obj{labels: map[string]string{"a": "1"}}, obj{labels: map[string]string{"a": "2"}}, true},
		"a user's annotation":       {obj{}, obj{annotations: map[string]string{"rotate": "now"}}, true},
		"create pending marked":     {obj{}, obj{annotations: map[string]string{pending: "t1"}}, false},
		"create failed marked":      {obj{annotations: map[string]string{pending: "t1"}}, obj{annotations: map[string]string{pending: "t1", failed: "t2"}}, false},
		"create succeeded with its external name": {
			obj{annotations: map[string]string{pending: "t1"}},
			obj{annotations: map[string]string{pending: "t1", succeeded: "t2", extName: "id"}}, false,
		},
		"external name set by a user (import)": {
			obj{annotations: map[string]string{succeeded: "t2", extName: "a"}},
			obj{annotations: map[string]string{succeeded: "t2", extName: "b"}}, true,
		},
		"external name removed by a user": {
			obj{annotations: map[string]string{succeeded: "t2", extName: "a"}},
			obj{annotations: map[string]string{succeeded: "t2"}}, true,
		},
		"a user's annotation beside a create": {
			obj{annotations: map[string]string{pending: "t1"}},
			obj{annotations: map[string]string{pending: "t1", succeeded: "t2", extName: "id", "rotate": "now"}}, true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			mk := func(o obj) *unstructured.Unstructured {
				u := &unstructured.Unstructured{}
				u.SetGeneration(o.generation)
				u.SetLabels(o.labels)
				u.SetAnnotations(o.annotations)
				u.SetFinalizers(o.finalizers)
				u.SetCreationTimestamp(metav1.Now())
				return u
			}
			if got := DesiredStateChanged(mk(tc.old), mk(tc.new)); got != tc.want {
				t.Errorf("DesiredStateChanged = %t, want %t", got, tc.want)
			}
		})
	}
}

// A managed resource's reconcile of its own disappearance finds nothing to
// do: the reconcile that removed the finalizer was its last, and a key
// delete costs two reconciles, not three.
func TestTheDisappearanceOfAResourceStartsNoReconcile(t *testing.T) {
	p := desiredStateChanged()
	o := &aiv1alpha1.AIGatewayKey{}
	if p.Delete(event.DeleteEvent{Object: o}) {
		t.Error("a delete event passes: the reconcile it starts finds the resource gone")
	}
	if !p.Create(event.CreateEvent{Object: o}) {
		t.Error("a create event is dropped")
	}
}
