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
