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

package kind

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kfake "k8s.io/client-go/kubernetes/fake"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

// TestFailedRunPrintsWhatTheClusterSays gives diagnose a cluster whose
// provider is unhealthy: its output must carry the condition, the event and
// the provider's log, and the whole log must be kept in a file.
func TestFailedRunPrintsWhatTheClusterSays(t *testing.T) {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	prov := provider(map[string]any{"type": "Healthy", "status": "False", "reason": "UnhealthyPackageRevision", "message": "cannot pull image"})
	prov.SetAPIVersion("pkg.crossplane.io/v1")
	event := &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{Namespace: ProviderNamespace, Name: "e"}, LastTimestamp: metav1.NewTime(time.Now()), Type: "Warning", Reason: "BackOff",
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "provider-coder-xyz"}, Message: "Back-off restarting failed container",
	}
	pod := providerPod("provider-coder-xyz", time.Now(), 0, true)
	out := t.TempDir()
	var log bytes.Buffer
	r := &runner{
		o:    Options{Out: &log},
		out:  out,
		kube: fake.NewClientBuilder().WithScheme(s).WithObjects(prov, event).Build(),
		cs:   kfake.NewClientset(pod),
	}
	r.diagnose(context.Background())
	for _, want := range []string{
		"Provider provider-coder:\n  Healthy=False UnhealthyPackageRevision: cannot pull image",
		"Warning BackOff Pod/provider-coder-xyz: Back-off restarting failed container",
		"-- provider-coder-xyz_package-runtime (" + out + "/logs/provider-coder-xyz_package-runtime.log):\nfake logs",
	} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("diagnose() output lacks %q:\n%s", want, log.String())
		}
	}
	if b, err := os.ReadFile(filepath.Join(out, "logs", "provider-coder-xyz_package-runtime.log")); err != nil || string(b) != "fake logs" {
		t.Errorf("the kept log = %q, %v; want the pod's whole log", b, err)
	}
}
