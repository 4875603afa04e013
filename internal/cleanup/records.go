package cleanup

import (
	"context"
	"strconv"
	"strings"
	"time"

	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
)

const (
	errWriteRecord   = "cannot write cleanup record"
	errDeleteRecord  = "cannot delete cleanup record"
	errAbandonRecord = "cannot mark cleanup record Abandoned"
)

// RecordName is the cleanup record of a managed resource: derived from the
// kind and the UID, so a retry never writes two.
func RecordName(kind string, uid types.UID) string {
	return strings.ToLower(kind) + "-" + string(uid)
}

// Records writes the cleanup records of managed resources.
type Records struct {
	kube   client.Client
	scheme *runtime.Scheme
	// abandoned is told when a record turns Abandoned, so a sweep runs at
	// once; nil when nothing sweeps.
	abandoned func()
}

// NewRecords returns a record writer. abandoned, if not nil, is called
// after a record turned Abandoned.
func NewRecords(kube client.Client, scheme *runtime.Scheme, abandoned func()) *Records {
	return &Records{kube: kube, scheme: scheme, abandoned: abandoned}
}

// Ensure writes an Active record for mg before anything is created in Coder.
func (r *Records) Ensure(ctx context.Context, mg resource.Managed, kind, deploymentID, coderName string) error {
	gvk, err := apiutil.GVKForObject(mg, r.scheme)
	if err != nil {
		return errors.Wrap(err, errWriteRecord)
	}
	rec := &clusterv1alpha1.CleanupRecord{
		ObjectMeta: metav1.ObjectMeta{Name: RecordName(kind, mg.GetUID())},
		Spec: clusterv1alpha1.CleanupRecordSpec{
			Kind: kind,
			ManagedResource: clusterv1alpha1.ManagedResourceReference{
				APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind,
				Namespace: mg.GetNamespace(), Name: mg.GetName(), UID: string(mg.GetUID()),
			},
			DeploymentID: deploymentID,
			CoderName:    coderName,
			Phase:        clusterv1alpha1.CleanupPhaseActive,
		},
	}
	if err := r.kube.Create(ctx, rec); err != nil && !kerrors.IsAlreadyExists(err) {
		return errors.Wrap(err, errWriteRecord)
	}
	return nil
}

// SetExternalID records the Coder id once a create returned it. It patches
// instead of reading first: the cache may not have the record just created.
// A record without the id is still swept, by name.
func (r *Records) SetExternalID(ctx context.Context, mg resource.Managed, kind, id string) error {
	rec := &clusterv1alpha1.CleanupRecord{ObjectMeta: metav1.ObjectMeta{Name: RecordName(kind, mg.GetUID())}}
	patch := []byte(`{"spec":{"externalID":` + strconv.Quote(id) + `}}`)
	return errors.Wrap(resource.IgnoreNotFound(r.kube.Patch(ctx, rec, client.RawPatch(types.MergePatchType, patch))), errWriteRecord)
}

// Delete removes the record of mg: its object was deleted in Coder, or
// deliberately left there.
func (r *Records) Delete(ctx context.Context, mg resource.Managed, kind string) error {
	rec := &clusterv1alpha1.CleanupRecord{ObjectMeta: metav1.ObjectMeta{Name: RecordName(kind, mg.GetUID())}}
	return errors.Wrap(resource.IgnoreNotFound(r.kube.Delete(ctx, rec)), errDeleteRecord)
}

// Abandon marks the record of mg Abandoned: it let go without a verified
// delete, so a sweep must delete the object in Coder.
func (r *Records) Abandon(ctx context.Context, mg resource.Managed, kind, reason string) error {
	rec := &clusterv1alpha1.CleanupRecord{}
	if err := r.kube.Get(ctx, types.NamespacedName{Name: RecordName(kind, mg.GetUID())}, rec); err != nil {
		return errors.Wrap(resource.IgnoreNotFound(err), errAbandonRecord)
	}
	if err := r.abandon(ctx, rec, reason); err != nil {
		return err
	}
	return nil
}

func (r *Records) abandon(ctx context.Context, rec *clusterv1alpha1.CleanupRecord, reason string) error {
	if rec.Spec.Phase == clusterv1alpha1.CleanupPhaseAbandoned {
		return nil
	}
	rec.Spec.Phase = clusterv1alpha1.CleanupPhaseAbandoned
	rec.Spec.Reason = reason
	rec.Spec.AbandonedAt = &metav1.Time{Time: time.Now()}
	if err := r.kube.Update(ctx, rec); err != nil {
		return errors.Wrap(err, errAbandonRecord)
	}
	if r.abandoned != nil {
		r.abandoned()
	}
	return nil
}
