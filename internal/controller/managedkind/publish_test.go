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
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/test/framework/fixture"
)

func controlled(uid string, data map[string][]byte) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{OwnerReferences: []metav1.OwnerReference{{UID: types.UID(uid), Controller: new(true)}}},
		Type:       resource.SecretTypeConnection,
		Data:       data,
	}
}

func TestPublishUnchangedFollowsThePublishersRules(t *testing.T) {
	d := map[string][]byte{"id": []byte("42"), "url": []byte("https://coder.example")}
	cases := map[string]struct {
		desired, cached *corev1.Secret
		want            bool
	}{
		"same data, same controller":   {controlled("a", d), controlled("a", map[string][]byte{"id": []byte("42"), "url": []byte("https://coder.example")}), true},
		"a value differs":              {controlled("a", d), controlled("a", map[string][]byte{"id": []byte("43"), "url": []byte("https://coder.example")}), false},
		"a value differs in its tail":  {controlled("a", d), controlled("a", map[string][]byte{"id": []byte("42"), "url": []byte("https://coder.example/")}), false},
		"a key is missing":             {controlled("a", d), controlled("a", map[string][]byte{"id": []byte("42")}), false},
		"a key is extra":               {controlled("a", map[string][]byte{"id": []byte("42")}), controlled("a", d), false},
		"same keys, another key named": {controlled("a", map[string][]byte{"id": []byte("42"), "x": nil}), controlled("a", map[string][]byte{"id": []byte("42"), "y": nil}), false},
		"empty and missing values":     {controlled("a", map[string][]byte{"k": nil}), controlled("a", map[string][]byte{"k": {}}), true},
		"no data and empty data":       {controlled("a", nil), controlled("a", map[string][]byte{}), true},
		"another controller":           {controlled("a", d), controlled("b", d), false},
		"uncontrolled Secret":          {controlled("a", d), &corev1.Secret{Type: resource.SecretTypeConnection, Data: d}, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := publishUnchanged(tc.desired, tc.cached); got != tc.want {
				t.Errorf("publishUnchanged = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestThePublisherWritesAConnectionSecretOnlyWhenItChanges drives
// crossplane-runtime's own publisher through the client the managed
// reconciler is built with: a missing Secret is created, unchanged details
// send nothing, changed ones are patched, and a Secret another resource
// controls is refused as before.
func TestThePublisherWritesAConnectionSecretOnlyWhenItChanges(t *testing.T) {
	s := fixture.Scheme(t)
	var writes []string
	kube := fake.NewClientBuilder().WithScheme(s).WithInterceptorFuncs(interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			writes = append(writes, "create")
			return c.Create(ctx, obj, opts...)
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, p client.Patch, opts ...client.PatchOption) error {
			writes = append(writes, "patch")
			return c.Patch(ctx, obj, p, opts...)
		},
	}).Build()
	pub := managed.NewAPILocalSecretPublisher(publishClient{Client: kube}, s)
	k := &v1alpha1.AIGatewayKey{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "k", UID: "uid-k"}}
	k.SetWriteConnectionSecretToReference(&xpv2.LocalSecretReference{Name: "k-conn"})
	ctx := context.Background()
	stored := func() *corev1.Secret {
		t.Helper()
		got := &corev1.Secret{}
		if err := kube.Get(ctx, client.ObjectKey{Namespace: "team", Name: "k-conn"}, got); err != nil {
			t.Fatal(err)
		}
		if _, marked := got.Annotations[unchangedMark]; marked {
			t.Fatalf("the Secret was stored with %s", unchangedMark)
		}
		return got
	}
	publish := func(step string, details managed.ConnectionDetails, want ...string) {
		t.Helper()
		writes = nil
		if _, err := pub.PublishConnection(ctx, k, details); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		if strings.Join(writes, ",") != strings.Join(want, ",") {
			t.Errorf("%s: writes %v, want %v", step, writes, want)
		}
		if got := stored(); !publishUnchanged(controlled("uid-k", details), got) {
			t.Errorf("%s: the Secret holds %v, want %v", step, got.Data, details)
		}
	}
	publish("first publish", managed.ConnectionDetails{"id": []byte("1"), "url": []byte("https://coder.example")}, "create")
	publish("the same details", managed.ConnectionDetails{"id": []byte("1"), "url": []byte("https://coder.example")})
	publish("a changed detail", managed.ConnectionDetails{"id": []byte("2"), "url": []byte("https://coder.example")}, "patch")
	publish("the changed details again", managed.ConnectionDetails{"id": []byte("2"), "url": []byte("https://coder.example")})

	// Another resource's Secret of that name is refused, not overwritten.
	other := stored()
	other.OwnerReferences[0].UID = "uid-other"
	if err := kube.Update(ctx, other); err != nil {
		t.Fatal(err)
	}
	writes = nil
	if _, err := pub.PublishConnection(ctx, k, managed.ConnectionDetails{"id": []byte("2"), "url": []byte("https://coder.example")}); err == nil {
		t.Error("published into a Secret another resource controls")
	}
	if len(writes) != 0 {
		t.Errorf("writes %v to a Secret another resource controls", writes)
	}
}

// A Get that reads a Secret, rather than publishing one, reads it.
func TestAReadOfASecretIsNotAPublish(t *testing.T) {
	s := fixture.Scheme(t)
	sec := controlled("uid-k", map[string][]byte{"id": []byte("1")})
	sec.Namespace, sec.Name = "team", "k-conn"
	c := publishClient{Client: fake.NewClientBuilder().WithScheme(s).WithObjects(sec).Build()}
	got := &corev1.Secret{}
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(sec), got); err != nil {
		t.Fatal(err)
	}
	if string(got.Data["id"]) != "1" {
		t.Errorf("read %v, want the stored data", got.Data)
	}
}
