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

package aiprovider

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"

	"github.com/crossplane-contrib/provider-coder/internal/controller/managedkind"
	"github.com/crossplane-contrib/provider-coder/internal/index"
)

func secretObject() client.Object { return managedkind.SecretObject() }

// readersOfSecret enqueues the AIProviders of kind gvk that read a Secret
// when it changes, so a rotated key reaches Coder before the next poll.
func readersOfSecret(kube client.Reader, s *runtime.Scheme, gvk schema.GroupVersionKind) (handler.EventHandler, error) {
	return managedkind.ReadersOfSecret(kube, s, gvk, index.AIProviderSecrets)
}
