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

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
)

// errFmtPendingCreate names the resource whose create may have written the
// provider, and nothing secret.
const errFmtPendingCreate = "the Coder %s named %q may be the result of a create of %s %s (UID %s) whose answer was lost, which that resource may still adopt; this resource does not import, change or delete it: wait until that resource is Ready or deleted, or delete it first"

// PendingCreateOf decides which other resource, if any, may own the Coder
// object of record kind kind (an AI provider, an MCP server: objects
// named by a name users choose) named name although no record names its id: one whose record
// names the provider by that name and carries a create attempt whose
// answer was lost. Such a resource adopts the provider it finds by name
// when Coder created it after the attempt, so nothing else may take it
// meanwhile. self (a UID) is never its own rival. Only records made
// through the Coder at now count (Speaks): a create sent to another Coder
// wrote nothing here.
func PendingCreateOf(kind, self, name string, recs []clusterv1alpha1.CleanupRecord, now Origin) (Owner, bool) {
	for i := range recs {
		rec := &recs[i]
		uid := rec.GetLabels()[ManagedResourceUIDLabel]
		pending := rec.Spec.Kind == kind && rec.Status.Phase != "" && rec.Status.CoderName == name &&
			rec.Status.ExternalID == "" && rec.Status.CreateAttemptedAt != nil && SpeaksOf(rec, now)
		if pending && uid != "" && uid != self {
			m := rec.Spec.ManagedResource
			return Owner{UID: uid, Kind: m.Kind, Namespace: m.Namespace, Name: m.Name, Record: true}, true
		}
	}
	return Owner{}, false
}

// PendingCreateByAnother returns the error naming the resource whose lost
// create may have written the Coder object of record kind kind named name in the Coder at now,
// when it is not mg (claimed); err is a failure to find out. It reads every cleanup record
// through the cache, so it suits a one-time decision such as an import by
// name, not a poll. No records (nil) know no claims.
func (r *Store) PendingCreateByAnother(ctx context.Context, mg resource.Managed, kind, name string, now Origin) (claimed, err error) {
	if r == nil {
		return nil, nil
	}
	l := &clusterv1alpha1.CleanupRecordList{}
	if err := r.kube.List(ctx, l); err != nil {
		return nil, errors.Wrap(err, errListRecords)
	}
	c, ok := PendingCreateOf(kind, string(mg.GetUID()), name, l.Items, now)
	if !ok {
		return nil, nil
	}
	ref := c.Name
	if c.Namespace != "" {
		ref = c.Namespace + "/" + c.Name
	}
	return errors.Errorf(errFmtPendingCreate, nounOf(kind), name, c.Kind, ref, c.UID), nil
}

// nounOf is how messages name an object of record kind kind.
func nounOf(kind string) string {
	if kind == KindMCPServer {
		return "MCP server"
	}
	return "provider"
}
