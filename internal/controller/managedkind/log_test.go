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

package managedkind

import (
	"strings"
	"testing"

	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"github.com/go-logr/logr/funcr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/ai/v1alpha1"
	namespacedv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/deletion"
	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
)

// A line a kind's client logs, "Started key rotation" among them, names
// the resource it is about, as the managed reconciler's own lines do.
func TestAKindsClientLogsNameTheResource(t *testing.T) {
	cases := map[string]struct {
		mg   resource.Managed
		want string
	}{
		"Namespaced": {mg: &namespacedv1alpha1.AIGatewayKey{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "ci"}}, want: `"namespace"="team-a" "name"="ci"`},
		"Cluster":    {mg: &clusterv1alpha1.AIGatewayKey{ObjectMeta: metav1.ObjectMeta{Name: "platform"}}, want: `"name"="platform"`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var lines []string
			base := logging.NewLogrLogger(funcr.New(func(prefix, args string) { lines = append(lines, args) }, funcr.Options{}))
			k := Kind[resource.Managed]{External: func(_ providerconfig.Session, log logging.Logger, _ event.Recorder) deletion.Live[resource.Managed] {
				log.Info("Started key rotation")
				return nil
			}}
			k.client(base, event.NewNopRecorder())(providerconfig.Session{}, tc.mg)
			if len(lines) != 1 || !strings.Contains(lines[0], tc.want) {
				t.Errorf("logged %q, want it to carry %s", lines, tc.want)
			}
		})
	}
}
