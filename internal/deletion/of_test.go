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

package deletion

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"

	clusteraiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/ai/v1alpha1"
	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/index"
	"github.com/crossplane-contrib/provider-coder/test/framework/fixture"
)

// A poll reads its resource's records from the cache. controller-runtime's
// cache answers a list by label alone by scanning every object it holds,
// so that would cost each poll time in proportion to every record of every
// resource: the cost per key per poll would grow with the keys. The list
// must go through the index of the UID label, and find exactly that
// resource's records.
func TestAResourcesRecordsAreReadByIndexNotByAScanOfEveryRecord(t *testing.T) {
	s := fixture.Scheme(t)
	mine := &aiv1alpha1.AIGatewayKey{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "gw", UID: "aaaaaaaa-0000-0000-0000-000000000001"}}
	var objs []client.Object
	for i := range 50 {
		uid := types.UID(fmt.Sprintf("bbbbbbbb-0000-0000-0000-%012d", i))
		objs = append(objs, &clusterv1alpha1.CleanupRecord{ObjectMeta: metav1.ObjectMeta{
			Name: Name("AIGatewayKey", uid), Labels: map[string]string{ManagedResourceUIDLabel: string(uid)},
		}})
	}
	for _, name := range []string{Name("AIGatewayKey", mine.UID), rotatedName("AIGatewayKey", mine.UID, 1)} {
		objs = append(objs, &clusterv1alpha1.CleanupRecord{ObjectMeta: metav1.ObjectMeta{
			Name: name, Labels: map[string]string{ManagedResourceUIDLabel: string(mine.UID)},
		}})
	}
	var scans []string
	kube := fixture.Kube(t, objs...).WithInterceptorFuncs(interceptor.Funcs{
		List: func(ctx context.Context, c client.WithWatch, l client.ObjectList, opts ...client.ListOption) error {
			o := (&client.ListOptions{}).ApplyOptions(opts)
			if _, ok := l.(*clusterv1alpha1.CleanupRecordList); ok && (o.FieldSelector == nil || o.FieldSelector.Empty()) {
				scans = append(scans, fmt.Sprintf("labels %q, no field index", o.LabelSelector))
			}
			return c.List(ctx, l, opts...)
		},
	}).Build()
	got, err := NewStore(kube, s, nil).Of(context.Background(), mine)
	if err != nil {
		t.Fatal(err)
	}
	if len(scans) > 0 {
		t.Errorf("records read by a scan of every record in the cache: %v; want a list by the %s index", scans, index.RecordManagedUID)
	}
	if n := len(got.recs); n != 2 {
		t.Errorf("found %d records of the resource, want its 2 of the 52", n)
	}
}

// Every poll asks who else names the object its resource names. Only
// resources of its own kind can (ids of one kind of Coder object are never
// sent to another's endpoints), in either scope: a cluster-scoped key that
// names a key first owns it against a namespaced one. The question costs
// one list of records and one per such kind, not one per managed kind.
func TestOwnershipAsksOnlyTheKindsThatNameTheSameCoderObject(t *testing.T) {
	const id = "0b7e0000-0000-0000-0000-000000000001"
	older := metav1.NewTime(metav1.Now().Add(-time.Hour))
	owner := &clusteraiv1alpha1.AIGatewayKey{ObjectMeta: metav1.ObjectMeta{Name: "platform", UID: "aaaaaaaa-0000-0000-0000-000000000001",
		CreationTimestamp: older, Annotations: map[string]string{meta.AnnotationKeyExternalName: id}}}
	other := &aiv1alpha1.AIProvider{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", UID: "cccccccc-0000-0000-0000-000000000001",
		CreationTimestamp: older, Annotations: map[string]string{meta.AnnotationKeyExternalName: id}}}
	mine := &aiv1alpha1.AIGatewayKey{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "gw", UID: "bbbbbbbb-0000-0000-0000-000000000001",
		CreationTimestamp: metav1.Now(), Annotations: map[string]string{meta.AnnotationKeyExternalName: id}}}
	var listed []string
	kube := fixture.Kube(t, owner, other, mine).WithInterceptorFuncs(interceptor.Funcs{
		List: func(ctx context.Context, c client.WithWatch, l client.ObjectList, opts ...client.ListOption) error {
			listed = append(listed, fmt.Sprintf("%T", l))
			return c.List(ctx, l, opts...)
		},
	}).Build()
	owned, err := NewStore(kube, fixture.Scheme(t), nil).OwnedByAnother(context.Background(), mine, id, Origin{})
	if err != nil {
		t.Fatal(err)
	}
	if owned == nil || !strings.Contains(owned.Error(), "AIGatewayKey platform") {
		t.Errorf("OwnedByAnother = %v, want the older cluster-scoped key named as owner", owned)
	}
	want := []string{"*v1alpha1.CleanupRecordList", "*v1alpha1.AIGatewayKeyList", "*v1alpha1.AIGatewayKeyList"}
	if diff := cmp.Diff(want, listed); diff != "" {
		t.Errorf("lists read: -want +got:\n%s", diff)
	}
}
