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

package controlplane

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
)

// waitTimeout bounds each wait for a controller. Both react to watch events
// within a second; the slack is for a loaded CI machine.
const waitTimeout = 30 * time.Second

// holdFinalizer keeps an object, and so its namespace, from being deleted
// until the test removes it.
const holdFinalizer = "controlplane.test.provider-coder/hold"

func TestControlPlaneDeletesAndAuthorizesLikeAClusterAndStopsCleanly(t *testing.T) {
	c := StartOrSkip(t, Options{})
	cs, err := kubernetes.NewForConfig(c.Config)
	if err != nil {
		t.Fatalf("cannot create clientset: %v", err)
	}

	// Each subtest works in its own namespace, so they share the control
	// plane in parallel; the namespace controller's fixed five second delay
	// would otherwise add up.
	t.Run("Group", func(t *testing.T) {
		t.Run("NamespaceDeletionRemovesContents", func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			ns := createNamespace(t, cs)
			createConfigMap(t, cs, ns, "content")

			if err := cs.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil {
				t.Fatalf("cannot delete namespace: %v", err)
			}
			eventually(t, "namespace "+ns+" to be deleted", func() (bool, error) {
				return gone(cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}))
			})
			if _, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "content", metav1.GetOptions{}); !kerrors.IsNotFound(err) {
				t.Errorf("ConfigMap in deleted namespace: want NotFound, got %v", err)
			}
		})

		t.Run("ForegroundDeletionRemovesDependents", func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			ns := createNamespace(t, cs)
			cms := cs.CoreV1().ConfigMaps(ns)
			owner := createConfigMap(t, cs, ns, "owner")
			block := true
			dependent := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
				Name: "dependent",
				// A finalizer holds the dependent, and with it the owner, so
				// the test can observe the owner waiting in foreground deletion.
				Finalizers: []string{holdFinalizer},
				OwnerReferences: []metav1.OwnerReference{{
					APIVersion:         "v1",
					Kind:               "ConfigMap",
					Name:               owner.Name,
					UID:                owner.UID,
					BlockOwnerDeletion: &block,
				}},
			}}
			if _, err := cms.Create(ctx, dependent, metav1.CreateOptions{}); err != nil {
				t.Fatalf("cannot create dependent: %v", err)
			}

			fg := metav1.DeletePropagationForeground
			if err := cms.Delete(ctx, owner.Name, metav1.DeleteOptions{PropagationPolicy: &fg}); err != nil {
				t.Fatalf("cannot delete owner: %v", err)
			}
			// The garbage collector deletes the dependent first; the owner
			// stays, marked for foreground deletion, while the dependent does.
			eventually(t, "the garbage collector to delete the dependent", func() (bool, error) {
				d, err := cms.Get(ctx, dependent.Name, metav1.GetOptions{})
				if err != nil {
					return false, err
				}
				return d.DeletionTimestamp != nil, nil
			})
			o, err := cms.Get(ctx, owner.Name, metav1.GetOptions{})
			if err != nil {
				t.Fatalf("owner must wait for its blocking dependent: %v", err)
			}
			if !slices.Contains(o.Finalizers, metav1.FinalizerDeleteDependents) {
				t.Errorf("owner finalizers: want %q, got %v", metav1.FinalizerDeleteDependents, o.Finalizers)
			}

			removeFinalizers(t, cs, ns, dependent.Name)
			eventually(t, "the owner to be deleted after its dependent", func() (bool, error) {
				return gone(cms.Get(ctx, owner.Name, metav1.GetOptions{}))
			})
			if _, err := cms.Get(ctx, dependent.Name, metav1.GetOptions{}); !kerrors.IsNotFound(err) {
				t.Errorf("dependent: want NotFound, got %v", err)
			}
		})

		t.Run("TerminatingNamespaceRefusesNewObjects", func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			ns := createNamespace(t, cs)
			cms := cs.CoreV1().ConfigMaps(ns)
			held := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "held", Finalizers: []string{holdFinalizer}}}
			if _, err := cms.Create(ctx, held, metav1.CreateOptions{}); err != nil {
				t.Fatalf("cannot create held ConfigMap: %v", err)
			}

			if err := cs.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil {
				t.Fatalf("cannot delete namespace: %v", err)
			}
			// Wait for the namespace controller to have tried to empty the
			// namespace, so the namespace is Terminating and stuck on the
			// finalizer rather than merely marked for deletion.
			eventually(t, "the namespace controller to delete the held ConfigMap", func() (bool, error) {
				cm, err := cms.Get(ctx, held.Name, metav1.GetOptions{})
				if err != nil {
					return false, err
				}
				return cm.DeletionTimestamp != nil, nil
			})
			n, err := cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
			if err != nil {
				t.Fatalf("cannot get namespace: %v", err)
			}
			if n.Status.Phase != corev1.NamespaceTerminating {
				t.Fatalf("namespace phase: want %s, got %s", corev1.NamespaceTerminating, n.Status.Phase)
			}

			_, err = cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "late"}}, metav1.CreateOptions{})
			if !kerrors.IsForbidden(err) || !strings.Contains(err.Error(), "being terminated") {
				t.Errorf("create in terminating namespace: want Forbidden %q, got %v", "being terminated", err)
			}

			removeFinalizers(t, cs, ns, held.Name)
			eventually(t, "namespace "+ns+" to be deleted", func() (bool, error) {
				return gone(cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}))
			})
		})

		t.Run("UserConfigIsSubjectToRBAC", func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			ns := createNamespace(t, cs)
			user, err := kubernetes.NewForConfig(c.UserConfig("alice", "provider-coder:testers"))
			if err != nil {
				t.Fatalf("cannot create user clientset: %v", err)
			}
			review, err := user.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authnv1.SelfSubjectReview{}, metav1.CreateOptions{})
			if err != nil {
				t.Fatalf("cannot review own identity: %v", err)
			}
			if u := review.Status.UserInfo; u.Username != "alice" || !slices.Contains(u.Groups, "provider-coder:testers") {
				t.Errorf("identity: want alice in provider-coder:testers, got %s in %v", u.Username, u.Groups)
			}
			if _, err := user.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{}); !kerrors.IsForbidden(err) {
				t.Fatalf("list without a role: want Forbidden, got %v", err)
			}

			if _, err := cs.RbacV1().Roles(ns).Create(ctx, &rbacv1.Role{
				ObjectMeta: metav1.ObjectMeta{Name: "configmap-reader"},
				Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"list"}}},
			}, metav1.CreateOptions{}); err != nil {
				t.Fatalf("cannot create role: %v", err)
			}
			// Bind the group rather than the user: groups come from the
			// certificate's organizations, which is easier to get wrong.
			if _, err := cs.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{
				ObjectMeta: metav1.ObjectMeta{Name: "configmap-reader"},
				RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "configmap-reader"},
				Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.GroupKind, Name: "provider-coder:testers"}},
			}, metav1.CreateOptions{}); err != nil {
				t.Fatalf("cannot create role binding: %v", err)
			}
			// RBAC is enforced from an informer cache, so the grant takes a
			// moment to apply.
			eventually(t, "the role binding to take effect", func() (bool, error) {
				_, err := user.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
				return err == nil, err
			})
			if _, err := user.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{}); !kerrors.IsForbidden(err) {
				t.Errorf("list secrets: want Forbidden, got %v", err)
			}
		})

		t.Run("Kubectl", func(t *testing.T) {
			t.Parallel()
			out, err := c.Kubectl("get", "namespace", "default", "--output=name").CombinedOutput()
			if err != nil {
				t.Fatalf("kubectl: %v: %s", err, out)
			}
			if got, want := strings.TrimSpace(string(out)), "namespace/default"; got != want {
				t.Errorf("kubectl get namespace: want %q, got %q", want, got)
			}
		})
	})

	// Last, as it ends the control plane the subtests above share.
	t.Run("StopIsIdempotentAndComplete", func(t *testing.T) {
		for i := range 2 {
			if err := c.Stop(); err != nil {
				t.Fatalf("Stop call %d: %v", i+1, err)
			}
		}
		for _, p := range c.procs {
			select {
			case <-p.done:
			default:
				t.Errorf("%s still running after Stop", p.name)
			}
		}
		if _, err := os.Stat(c.Dir); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Dir after Stop: want it removed, got %v", err)
		}
	})
}

// createNamespace creates a uniquely named namespace and deletes it when the
// test ends, unless the test deleted it already.
func createNamespace(t *testing.T, cs kubernetes.Interface) string {
	t.Helper()
	ns, err := cs.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "test-"},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("cannot create namespace: %v", err)
	}
	t.Cleanup(func() {
		err := cs.CoreV1().Namespaces().Delete(context.Background(), ns.Name, metav1.DeleteOptions{})
		// Conflict: the namespace is already terminating.
		if err != nil && !kerrors.IsNotFound(err) && !kerrors.IsConflict(err) {
			t.Errorf("cannot delete namespace %s: %v", ns.Name, err)
		}
	})
	return ns.Name
}

func createConfigMap(t *testing.T, cs kubernetes.Interface, ns, name string) *corev1.ConfigMap {
	t.Helper()
	cm, err := cs.CoreV1().ConfigMaps(ns).Create(t.Context(), &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("cannot create ConfigMap %s/%s: %v", ns, name, err)
	}
	return cm
}

func removeFinalizers(t *testing.T, cs kubernetes.Interface, ns, name string) {
	t.Helper()
	patch := []byte(`{"metadata":{"finalizers":null}}`)
	if _, err := cs.CoreV1().ConfigMaps(ns).Patch(t.Context(), name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatalf("cannot remove finalizers of %s/%s: %v", ns, name, err)
	}
}

// eventually polls cond until it holds, failing t after waitTimeout.
func eventually(t *testing.T, what string, cond func() (bool, error)) {
	t.Helper()
	var last error
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, waitTimeout, true, func(context.Context) (bool, error) {
		ok, err := cond()
		last = err
		return ok, nil
	})
	if err == nil {
		return
	}
	if last == nil {
		last = errors.New("condition never held")
	}
	t.Fatalf("timed out after %s waiting for %s: %v", waitTimeout, what, last)
}
