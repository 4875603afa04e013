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

package index

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
)

func TestSecretIndexNamesEachSecretOnce(t *testing.T) {
	ref := func(ns, name, key string) common.SecretKeySelector {
		return common.SecretKeySelector{LocalSecretKeySelector: common.LocalSecretKeySelector{Name: name, Key: key}, Namespace: ns}
	}
	id, secret := ref("b", "aws", "id"), ref("b", "aws", "secret")
	got := secretValues(common.AIProviderSecretRefs{
		APIKeys:     []common.SecretKeySelector{ref("a", "keys", "one"), ref("a", "keys", "two"), ref("b", "keys", "one")},
		AccessKeyID: &id, SecretAccessKey: &secret,
	})
	if diff := cmp.Diff([]string{"a/keys", "b/keys", "b/aws"}, got); diff != "" {
		t.Errorf("secretValues: -want, +got:\n%s", diff)
	}
}
