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

package e2e

import (
	"context"
	"testing"

	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-coder/internal/controller/config"
	"github.com/crossplane-contrib/provider-coder/internal/provider"
	"github.com/crossplane-contrib/provider-coder/test/framework/packagerbac"
)

// Crossplane v2 grants a provider less than provider-coder needs, and an
// operator may forget examples/install/rbac.yaml. The review finds what is
// missing, as the API server's RBAC decides it.
func TestPermissionReviewFindsWhatCrossplaneDoesNotGrant(t *testing.T) {
	if env.ControlPlane == nil {
		t.Skip("needs the local control plane, which issues client certificates")
	}
	ctx := context.Background()
	as := func(user string) client.Client {
		t.Helper()
		s, err := provider.Scheme()
		if err != nil {
			t.Fatal(err)
		}
		c, err := client.New(env.ControlPlane.UserConfig(user, "system:authenticated"), client.Options{Scheme: s})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}

	// The provider's identity: Crossplane's role and the extra one.
	missing, err := config.MissingPermissions(ctx, as(packagerbac.User()), config.Needed)
	if err != nil || len(missing) != 0 {
		t.Errorf("with examples/install/rbac.yaml bound: missing %v (%v), want none", missing, err)
	}

	// An install without the extra role: only what Crossplane grants.
	user := "system:serviceaccount:crossplane-system:provider-coder-without-extra"
	b := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "provider-coder-without-extra"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: packagerbac.SystemClusterRoleName},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}},
	}
	env.Create(t, b)
	t.Cleanup(func() { _ = env.Kube.Delete(ctx, b) })
	testenv.Eventually(t, testenv.WaitLong, "the review to find all of Needed missing", func() (bool, string) {
		missing, err := config.MissingPermissions(ctx, as(user), config.Needed)
		if err != nil {
			return false, err.Error()
		}
		return len(missing) == len(config.Needed), config.MissingPermissionsMessage(missing)
	})
}
