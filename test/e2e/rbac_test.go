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
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/provider"
	"github.com/crossplane-contrib/provider-coder/test/framework/packagerbac"
	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"
)

// TestRBACDenialsAreCaught checks the net under the suite: a request the
// provider's role does not allow is recorded (and would fail the run), one
// it allows is not. It uses a Denials of its own, so the suite's stays clean.
func TestRBACDenialsAreCaught(t *testing.T) {
	if env.ControlPlane == nil {
		t.Skip("needs the local control plane, which issues client certificates")
	}
	d := &testenv.Denials{}
	cfg := env.ControlPlane.UserConfig(packagerbac.User(), packagerbac.Groups()...)
	cfg.WrapTransport = d.Wrap
	s, err := provider.Scheme()
	if err != nil {
		t.Fatal(err)
	}
	kube, err := client.New(cfg, client.Options{Scheme: s})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := kube.List(ctx, &clusterv1alpha1.CleanupRecordList{}); err != nil {
		t.Fatalf("the provider's role cannot list cleanup records: %v", err)
	}
	// Pods are not the provider's business.
	err = kube.DeleteAllOf(ctx, &corev1.Pod{}, client.InNamespace("default"))
	if !kerrors.IsForbidden(err) {
		t.Fatalf("deleting pods as the provider = %v, want forbidden", err)
	}
	got := d.All()
	if len(got) != 1 || !strings.Contains(got[0], `cannot deletecollection resource "pods"`) {
		t.Errorf("denials = %q, want the one pod deletion", got)
	}
}
