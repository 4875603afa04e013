package cleanup

import (
	"context"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
)

const (
	// ExternalIDIndex indexes cleanup records by the Coder id they name.
	ExternalIDIndex = "spec.externalID"
	// ExternalNameIndex indexes managed resources by their external name.
	ExternalNameIndex = "metadata.annotations.crossplane.io/external-name"
)

// An Index is a field index of the manager's cache that Records reads.
type Index struct {
	Object  client.Object
	Field   string
	Extract client.IndexerFunc
}

// Indexes are the cache indexes Records needs: finding who claims a Coder
// object reads only the records and resources naming it, not every one of
// them on every poll.
func Indexes() []Index {
	out := []Index{{Object: &clusterv1alpha1.CleanupRecord{}, Field: ExternalIDIndex, Extract: func(o client.Object) []string {
		rec, ok := o.(*clusterv1alpha1.CleanupRecord)
		if !ok || rec.Status.ExternalID == "" {
			return nil
		}
		return []string{rec.Status.ExternalID}
	}}}
	for _, k := range providerconfig.ManagedKinds() {
		out = append(out, Index{Object: k.New(), Field: ExternalNameIndex, Extract: func(o client.Object) []string {
			if n := meta.GetExternalName(o); n != "" {
				return []string{n}
			}
			return nil
		}})
	}
	return out
}

// SetupIndexes registers Indexes with the manager's cache.
func SetupIndexes(ctx context.Context, indexer client.FieldIndexer) error {
	for _, i := range Indexes() {
		if err := indexer.IndexField(ctx, i.Object, i.Field, i.Extract); err != nil {
			return errors.Wrapf(err, "cannot index %T by %s", i.Object, i.Field)
		}
	}
	return nil
}
