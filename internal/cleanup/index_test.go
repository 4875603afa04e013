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

package cleanup

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/crossplane-contrib/provider-coder/apis"
	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/index"
)

// withIndexes registers the indexes Records reads with a fake client, as
// index.Setup does with the manager's cache.
func withIndexes(b *fake.ClientBuilder) *fake.ClientBuilder {
	for _, i := range index.All() {
		b = b.WithIndex(i.Object, i.Field, i.Extract)
	}
	return b
}

// testKube is a fake client of every kind of the provider, with the
// indexes Records reads: finding who owns a Coder object lists them all.
func testKube(t *testing.T) (*fake.ClientBuilder, *runtime.Scheme) {
	t.Helper()
	s := runtime.NewScheme()
	if err := apis.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return withIndexes(fake.NewClientBuilder().WithScheme(s).WithStatusSubresource(&clusterv1alpha1.CleanupRecord{})), s
}
