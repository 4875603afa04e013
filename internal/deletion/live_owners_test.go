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
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
)

func TestALiveResourceHoldsAnObjectOnlyByItsExternalNameAndARecordOfItsOwn(t *testing.T) {
	platform := originAt(platformURL, platformDepl, "")
	recAt := func(o Origin, uid, id string) clusterv1alpha1.CleanupRecord {
		return clusterv1alpha1.CleanupRecord{
			ObjectMeta: metav1.ObjectMeta{Name: Name(KindKey, types.UID(uid)), Labels: map[string]string{ManagedResourceUIDLabel: uid}},
			Spec:       clusterv1alpha1.CleanupRecordSpec{DeploymentID: o.DeploymentID, ProviderConfig: o.Spec()},
			Status:     clusterv1alpha1.CleanupRecordStatus{ExternalID: id},
		}
	}
	rec := func(uid, id string) clusterv1alpha1.CleanupRecord { return recAt(platform, uid, id) }
	live := func(uid, id string) resource.Managed {
		k := &aiv1alpha1.AIGatewayKey{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: uid, UID: types.UID(uid)}}
		meta.SetExternalName(k, id)
		return k
	}
	cases := map[string]struct {
		reason string
		recs   []clusterv1alpha1.CleanupRecord
		live   []resource.Managed
		// except is whose holding does not count; want: "id" is held.
		except []string
		want   bool
	}{
		"NameAndOwnRecord": {
			reason: "a live resource whose external name and own record both name the id holds it",
			recs:   []clusterv1alpha1.CleanupRecord{rec("a", "id")}, live: []resource.Managed{live("a", "id")}, want: true,
		},
		"NameAlone": {
			reason: "an external name is anyone's to write: without a record of its own it holds nothing",
			live:   []resource.Managed{live("a", "id")},
		},
		"AnotherResourcesRecord": {
			reason: "a record of another resource (an earlier owner) does not make the name hold",
			recs:   []clusterv1alpha1.CleanupRecord{rec("b", "id")}, live: []resource.Managed{live("a", "id")},
		},
		"RecordAlone": {
			reason: "a record whose resource is gone holds nothing: that is what the sweep deletes",
			recs:   []clusterv1alpha1.CleanupRecord{rec("a", "id")},
		},
		"RecordOfATenantsOwnServer": {
			reason: "a record made through a tenant's server, which answered with the platform's id and deployment, holds nothing in the platform's Coder",
			recs:   []clusterv1alpha1.CleanupRecord{recAt(originAt(tenantURL, platformDepl, "ns"), "a", "id")}, live: []resource.Managed{live("a", "id")},
		},
		"RecordOfAnotherDeploymentAtTheURL": {
			reason: "a record of the deployment the URL reached before holds nothing in the one it reaches now",
			recs:   []clusterv1alpha1.CleanupRecord{recAt(originAt(platformURL, "deployment-old", ""), "a", "id")}, live: []resource.Managed{live("a", "id")},
		},
		"ExceptTheHolder": {
			reason: "the resource deleting for itself does not count its own holding",
			recs:   []clusterv1alpha1.CleanupRecord{rec("a", "id")}, live: []resource.Managed{live("a", "id")}, except: []string{"a"},
		},
		"ExceptAnotherOfTwoHolders": {
			reason: "with two holders, excepting one leaves the other's",
			recs:   []clusterv1alpha1.CleanupRecord{rec("a", "id"), rec("b", "id")}, live: []resource.Managed{live("a", "id"), live("b", "id")},
			except: []string{"a"}, want: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := liveOwnersOf(tc.recs, tc.live, platform).Except(tc.except...)("id"); got != tc.want {
				t.Errorf("%s: held = %t, want %t", tc.reason, got, tc.want)
			}
		})
	}
}
