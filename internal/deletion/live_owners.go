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
	"slices"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
)

// liveOwners are the Coder objects live managed resources hold, by id, with
// the UIDs of their holders. A resource holds an object when its external
// name is the object's id and a cleanup record of its own names the id
// too (its create, or its adoption of an import), made through the Coder
// acted on (Speaks): an external name alone is anyone's to write, and
// would keep another resource's released key alive, and a record of
// another Coder names another object, whatever id its server answered.
// This is the one rule of who holds an object; the sweep and a deleting
// resource's look at what its records name both go by it, and coderobj
// leaves a held object alone.
type liveOwners map[string][]string

// liveOwnersOf decides who holds what from the cleanup records and the live
// managed resources the caller read (all of them for the sweep, those
// naming one id for a deleting resource), in the Coder at now.
func liveOwnersOf(recs []clusterv1alpha1.CleanupRecord, live []resource.Managed, now Origin) liveOwners {
	recorded := make(map[[2]string]bool, len(recs))
	for i := range recs {
		if id := recs[i].Status.ExternalID; id != "" && SpeaksOf(&recs[i], now) {
			recorded[[2]string{recs[i].GetLabels()[ManagedResourceUIDLabel], id}] = true
		}
	}
	h := liveOwners{}
	for _, mg := range live {
		uid := string(mg.GetUID())
		if id := meta.GetExternalName(mg); id != "" && recorded[[2]string{uid, id}] && !slices.Contains(h[id], uid) {
			h[id] = append(h[id], uid)
		}
	}
	return h
}

// Except is what resources other than those of uids hold: the objects
// coderobj must leave alone when it deletes for uids.
func (h liveOwners) Except(uids ...string) Owned {
	return func(id string) bool {
		return slices.ContainsFunc(h[id], func(uid string) bool { return !slices.Contains(uids, uid) })
	}
}
