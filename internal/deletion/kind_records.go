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
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
)

// BudgetClaim returns what the set's written record of kind says of the
// row id (BudgetClaimOf), if one names it.
func (s Set) BudgetClaim(kind, id string) (BudgetClaim, bool) {
	for i := range s.recs {
		r := &s.recs[i]
		if r.Spec.Kind == kind && r.Status.Phase != "" && r.Status.ExternalID == id && id != "" {
			return BudgetClaimOf(r), true
		}
	}
	return BudgetClaim{}, false
}

// NameGroup records the group (or user) a budget's first PUT will go to
// before it is sent, so two resources of one group see each other's
// records (BudgetOwner). A record naming another row keeps naming it.
func (r *Store) NameGroup(ctx context.Context, mg resource.Managed, kind string, o Origin, id string) error {
	name, err := r.BudgetRecord(ctx, mg, kind, id)
	if err != nil {
		return err
	}
	if name == Name(kind, mg.GetUID()) {
		return r.SetRotatedExternalID(ctx, mg, kind, 0, id)
	}
	return r.ensure(ctx, mg, kind, name, o, map[string]any{
		"phase": clusterv1alpha1.CleanupPhaseActive, "externalID": id, "createAttemptedAt": metav1.Now(),
	})
}

// SetCoderUpdatedAt records Coder's answer to a PUT of the row id: the row
// is mg's while Coder shows that updated_at.
func (r *Store) SetCoderUpdatedAt(ctx context.Context, mg resource.Managed, kind, id, updatedAt string, limit int64, group string) error {
	name, err := r.BudgetRecord(ctx, mg, kind, id)
	if err != nil {
		return err
	}
	return r.patchStatus(ctx, name, answer(map[string]any{"createAttemptedAt": nil}, updatedAt, limit, group))
}

// BudgetRecord is the name of mg's record of the row id, read past the
// cache: the one naming id, else its first while that names nothing, else
// one of its own for id. A record never changes what it names (DESIGN §9),
// so a budget whose group moved is deleted by both records.
func (r *Store) BudgetRecord(ctx context.Context, mg resource.Managed, kind, id string) (string, error) {
	recs, err := list(ctx, r.reader, mg)
	if err != nil {
		return "", err
	}
	base := Name(kind, mg.GetUID())
	baseFree := true
	for i := range recs {
		if named := recs[i].Status.ExternalID; named == id {
			return recs[i].Name, nil
		} else if recs[i].Name == base && named != "" {
			baseFree = false
		}
	}
	if baseFree {
		return base, nil
	}
	return BudgetRecordName(kind, mg.GetUID(), id), nil
}

// BudgetRecordName is mg's record of the row id when its first record names
// another row; a retry writes the same one.
func BudgetRecordName(kind string, uid types.UID, id string) string {
	sum := sha256.Sum256([]byte(id))
	return Name(kind, uid) + "-" + hex.EncodeToString(sum[:5])
}

// DeleteBudgetRecord removes mg's record of the row id, written before a PUT
// that was then not sent (another resource owns the row).
func (r *Store) DeleteBudgetRecord(ctx context.Context, mg resource.Managed, kind, id string) error {
	name, err := r.BudgetRecord(ctx, mg, kind, id)
	if err != nil {
		return err
	}
	rec := &clusterv1alpha1.CleanupRecord{ObjectMeta: metav1.ObjectMeta{Name: name}}
	return errors.Wrap(resource.IgnoreNotFound(r.kube.Delete(ctx, rec)), errDeleteRecord)
}

func answer(status map[string]any, updatedAt string, limit int64, group string) map[string]any {
	status["coderUpdatedAt"], status["spendLimitMicros"] = updatedAt, limit
	if group != "" {
		status["groupID"] = group
	}
	return status
}

// EnsureAdoptedBudget records an import that may write the row id: mg owns
// it while Coder shows updatedAt.
func (r *Store) EnsureAdoptedBudget(ctx context.Context, mg resource.Managed, kind string, o Origin, id, updatedAt string, limit int64, group string) error {
	name, err := r.BudgetRecord(ctx, mg, kind, id)
	if err != nil {
		return err
	}
	return r.ensure(ctx, mg, kind, name, o, answer(map[string]any{
		"phase": clusterv1alpha1.CleanupPhaseActive, "externalID": id,
	}, updatedAt, limit, group))
}

// ActiveOwners are the resources whose Active records of the Coder at now
// name id, read past the cache so a racer's fresh record counts, each dated
// by its record's creation, which the API server sets.
func (r *Store) ActiveOwners(ctx context.Context, id string, now Origin) ([]Owner, error) {
	l := &clusterv1alpha1.CleanupRecordList{}
	if err := r.reader.List(ctx, l); err != nil {
		return nil, errors.Wrap(err, errListRecords)
	}
	var out []Owner
	for i := range l.Items {
		rec := &l.Items[i]
		uid := rec.GetLabels()[ManagedResourceUIDLabel]
		if rec.Status.ExternalID != id || uid == "" || rec.Status.Phase != clusterv1alpha1.CleanupPhaseActive || !SpeaksOf(rec, now) {
			continue
		}
		m := rec.Spec.ManagedResource
		out = append(out, Owner{UID: uid, Kind: m.Kind, Namespace: m.Namespace, Name: m.Name, Record: true, Created: rec.CreationTimestamp.Time})
	}
	return out, nil
}

// BudgetOwner decides whether self may write a row Active records name: only
// when no other's record names it. Each racer records before it reads, so
// both may yield but two never write; it returns whom self yields to.
func BudgetOwner(self string, claims []Owner) (Owner, bool) {
	others := slices.DeleteFunc(slices.Clone(claims), func(c Owner) bool { return !c.Record || c.UID == self })
	if len(others) == 0 {
		return Owner{}, false
	}
	return slices.MinFunc(others, olderFirst), true
}

// rotatedName: each key of a rotation has its own record.
func rotatedName(kind string, uid types.UID, n int) string {
	if n == 0 {
		return Name(kind, uid)
	}
	return Name(kind, uid) + "-r" + strconv.Itoa(n)
}

// RotationOf returns the rotation counter of one of the resource's record
// names, and whether it is one.
func RotationOf(kind string, uid types.UID, name string) (int, bool) {
	base := Name(kind, uid)
	if name == base {
		return 0, true
	}
	rest, ok := strings.CutPrefix(name, base+"-r")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n <= 0 || rotatedName(kind, uid, n) != name {
		return 0, false
	}
	return n, true
}

// EnsureRotated writes the record of rotation n's key before its create,
// dropping a discarded key's id so a sweep finds the new one by name.
func (r *Store) EnsureRotated(ctx context.Context, mg resource.Managed, kind string, n int, o Origin, coderName string) error {
	return r.ensure(ctx, mg, kind, rotatedName(kind, mg.GetUID(), n), o, map[string]any{
		"phase": clusterv1alpha1.CleanupPhaseActive, "coderName": coderName, "createAttemptedAt": metav1.Now(), "externalID": nil,
	})
}

// SetRotatedExternalID records the Coder id of the key of rotation counter n.
func (r *Store) SetRotatedExternalID(ctx context.Context, mg resource.Managed, kind string, n int, id string) error {
	return resource.IgnoreNotFound(r.patchStatus(ctx, rotatedName(kind, mg.GetUID(), n), map[string]any{"externalID": id}))
}

// DeleteRotated removes the record of rotation n once its key is verified
// gone from Coder.
func (r *Store) DeleteRotated(ctx context.Context, mg resource.Managed, kind string, n int) error {
	rec := &clusterv1alpha1.CleanupRecord{ObjectMeta: metav1.ObjectMeta{Name: rotatedName(kind, mg.GetUID(), n)}}
	return errors.Wrap(resource.IgnoreNotFound(r.kube.Delete(ctx, rec)), errDeleteRecord)
}

// Rotations returns the rotation counters of the set's records of kind.
func (s Set) Rotations(kind string) []int {
	out := make([]int, 0, len(s.recs))
	for i := range s.recs {
		if n, ok := RotationOf(kind, s.uid, s.recs[i].Name); ok {
			out = append(out, n)
		}
	}
	return out
}
