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

// Package apis registers every API group of provider-coder with a scheme.
package apis

import (
	"k8s.io/apimachinery/pkg/runtime"

	clusteraiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/ai/v1alpha1"
	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	namespacedaiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	namespacedv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/v1alpha1"
)

//go:generate go tool -modfile=../tools/go.mod controller-gen object:headerFile=../hack/boilerplate.go.txt paths=./... crd:crdVersions=v1,allowDangerousTypes=false output:artifacts:config=../package/crds
//go:generate go tool -modfile=../tools/go.mod angryjet generate-methodsets --header-file=../hack/boilerplate.go.txt ./...

// AddToScheme adds every provider-coder API group to a scheme.
func AddToScheme(s *runtime.Scheme) error {
	for _, add := range []func(*runtime.Scheme) error{
		clusterv1alpha1.SchemeBuilder.AddToScheme,
		clusteraiv1alpha1.SchemeBuilder.AddToScheme,
		namespacedv1alpha1.SchemeBuilder.AddToScheme,
		namespacedaiv1alpha1.SchemeBuilder.AddToScheme,
	} {
		if err := add(s); err != nil {
			return err
		}
	}
	return nil
}
