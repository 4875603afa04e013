package cleanup

import "sigs.k8s.io/controller-runtime/pkg/client/fake"

// withIndexes registers the indexes Records reads with a fake client, as
// SetupIndexes does with the manager's cache.
func withIndexes(b *fake.ClientBuilder) *fake.ClientBuilder {
	for _, i := range Indexes() {
		b = b.WithIndex(i.Object, i.Field, i.Extract)
	}
	return b
}
