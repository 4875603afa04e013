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
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"

	"github.com/crossplane-contrib/provider-coder/test/framework/crds"
)

// containerd pulls over plain HTTP only from a registry whose hosts.toml
// names it so: its server and a host entry, both http://.
func TestTheRegistryHostsFileTellsContainerdToPullOverPlainHTTP(t *testing.T) {
	want := "server = \"http://10.89.0.2:30500\"\n\n[host.\"http://10.89.0.2:30500\"]\n  capabilities = [\"pull\", \"resolve\"]\n"
	if got := RegistryHosts("10.89.0.2:30500"); got != want {
		t.Errorf("RegistryHosts() =\n%s\nwant\n%s", got, want)
	}
}

// The scenarios run the guide's configuration (its security context, which
// the restricted namespace requires) with their own arguments and one pod.
func TestTheScenariosRunTheGuidesConfigurationWithTheirArgumentsAndOneReplica(t *testing.T) {
	drc, err := InstallGuideRuntimeConfig(crds.RepoRoot())
	if err != nil {
		t.Fatal(err)
	}
	if err := ScenarioRuntimeConfig(drc); err != nil {
		t.Fatal(err)
	}
	spec := []string{"spec", "deploymentTemplate", "spec"}
	replicas, _, _ := unstructured.NestedInt64(drc.Object, append(spec, "replicas")...)
	containers, _, _ := unstructured.NestedSlice(drc.Object, append(spec, "template", "spec", "containers")...)
	c := containers[0].(map[string]any)
	args, _, _ := unstructured.NestedStringSlice(c, "args")
	seccomp, _, _ := unstructured.NestedString(drc.Object, append(spec, "template", "spec", "securityContext", "seccompProfile", "type")...)
	drop, _, _ := unstructured.NestedStringSlice(c, "securityContext", "capabilities", "drop")
	if replicas != 1 || strings.Join(args, " ") != strings.Join(ProviderArgs(), " ") || seccomp != "RuntimeDefault" || strings.Join(drop, ",") != "ALL" {
		t.Errorf("replicas %d, args %q, seccomp %q, drop %q; want 1, %q, the guide's RuntimeDefault and ALL", replicas, args, seccomp, drop, ProviderArgs())
	}
}

func TestARolloutIsDoneWhenEveryReplicaRunsTheLatestTemplate(t *testing.T) {
	d := func(gen, observed int64, replicas, updated, ready, all int32, conds ...appsv1.DeploymentCondition) *appsv1.Deployment {
		return &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: "crossplane", Generation: gen},
			Spec:       appsv1.DeploymentSpec{Replicas: ptr.To(replicas)},
			Status:     appsv1.DeploymentStatus{ObservedGeneration: observed, UpdatedReplicas: updated, ReadyReplicas: ready, Replicas: all, Conditions: conds},
		}
	}
	refused := appsv1.DeploymentCondition{Type: appsv1.DeploymentReplicaFailure, Status: corev1.ConditionTrue,
		Message: "pods \"crossplane-1\" is forbidden: violates PodSecurity \"restricted:latest\""}
	cases := map[string]struct {
		d    *appsv1.Deployment
		want string // "" when rolled out
	}{
		"Done":                  {d: d(2, 2, 2, 2, 2, 2)},
		"NotObservedYet":        {d: d(3, 2, 2, 2, 2, 2), want: "2 of 2 replicas updated"},
		"AnOldPodLeft":          {d: d(2, 2, 2, 2, 2, 3), want: "3 in all"},
		"RefusedByPodSecurity":  {d: d(2, 2, 1, 0, 0, 1, refused), want: `violates PodSecurity "restricted:latest"`},
		"UpdatedButNotReady":    {d: d(2, 2, 2, 2, 1, 2), want: "1 ready"},
		"ReplicasUnsetMeansOne": {d: &appsv1.Deployment{Status: appsv1.DeploymentStatus{UpdatedReplicas: 1, ReadyReplicas: 1, Replicas: 1}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := rolledOut(tc.d)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("rolledOut() = %v, want done", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("rolledOut() = %v, want it to say %q", err, tc.want)
			}
		})
	}
}

func TestTheStandInFunctionHasTheExamplesTag(t *testing.T) {
	if v, err := functionVersion(crds.RepoRoot()); err != nil || !strings.HasPrefix(v, "v") || strings.ContainsAny(v, " \n") {
		t.Errorf("functionVersion() = %q, %v; want the tag %s installs", v, err, functionsFile)
	}
}

func TestTheGuideIsRolledOutWhenTheFunctionRunsRestrictedAndTheProviderTwice(t *testing.T) {
	dep := func(labels map[string]string, replicas int32, seccomp bool) appsv1.Deployment {
		d := appsv1.Deployment{
			Spec:   appsv1.DeploymentSpec{Replicas: ptr.To(replicas), Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}}},
			Status: appsv1.DeploymentStatus{UpdatedReplicas: replicas, ReadyReplicas: replicas, Replicas: replicas},
		}
		if seccomp {
			d.Spec.Template.Spec.SecurityContext = &corev1.PodSecurityContext{SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}}
		}
		return d
	}
	crossplane := dep(map[string]string{"app": "crossplane"}, 1, true)
	fn := dep(map[string]string{"pkg.crossplane.io/function": functionName}, 1, true)
	provider := dep(map[string]string{"pkg.crossplane.io/provider": ProviderName}, 2, true)
	stuck := dep(map[string]string{"app": "crossplane-rbac-manager"}, 1, true)
	stuck.Status.ReadyReplicas = 0
	cases := map[string]struct {
		ds   []appsv1.Deployment
		want string
	}{
		"AsTheGuideLeavesThem":          {ds: []appsv1.Deployment{crossplane, fn, provider}},
		"TheFunctionAsCrossplaneMadeIt": {ds: []appsv1.Deployment{crossplane, dep(fn.Spec.Template.Labels, 1, false), provider}, want: "default runtime configuration (false)"},
		"OneReplicaOfTheProvider":       {ds: []appsv1.Deployment{crossplane, fn, dep(provider.Spec.Template.Labels, 1, true)}, want: "two replicas (false)"},
		"APodNotReady":                  {ds: []appsv1.Deployment{crossplane, fn, provider, stuck}, want: "0 ready"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := guideRolledOut(tc.ds)
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("guideRolledOut() = %v, want %q", err, tc.want)
			}
		})
	}
}
