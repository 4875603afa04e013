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
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-coder/test/framework/crds"
)

// CoderImage is the fake Coder's image, as the cluster knows it.
const CoderImage = "provider-coder.local/fakecoder:e2e"

// CrossplaneManifest reads the rendered Crossplane installation of version
// (RenderCrossplane).
func CrossplaneManifest(root, version string) ([]client.Object, error) {
	objs, err := crds.DecodeFile(CrossplaneRenderFile(root, version))
	if err != nil {
		return nil, err
	}
	out := make([]client.Object, len(objs))
	for i, u := range objs {
		out[i] = u
	}
	return out, nil
}

// FakeCoders deploys every fake Coder: the Coder API on CoderPort, the admin
// API on AdminPort, which stays up while the API is down.
func FakeCoders() []client.Object {
	out := []client.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: CoderNamespace}}}
	for _, name := range CoderNames() {
		labels := map[string]string{"app.kubernetes.io/name": name}
		out = append(out,
			&appsv1.Deployment{
				ObjectMeta: metav1.ObjectMeta{Namespace: CoderNamespace, Name: name, Labels: labels},
				Spec: appsv1.DeploymentSpec{
					Replicas: ptr.To[int32](1),
					Selector: &metav1.LabelSelector{MatchLabels: labels},
					Template: corev1.PodTemplateSpec{
						ObjectMeta: metav1.ObjectMeta{Labels: labels},
						Spec: corev1.PodSpec{Containers: []corev1.Container{{
							Name:            "fakecoder",
							Image:           CoderImage,
							ImagePullPolicy: corev1.PullNever,
							Args: []string{
								fmt.Sprintf("--listen=0.0.0.0:%d", CoderPort),
								fmt.Sprintf("--admin-listen=0.0.0.0:%d", AdminPort),
							},
							Ports: []corev1.ContainerPort{
								{Name: "api", ContainerPort: CoderPort},
								{Name: "admin", ContainerPort: AdminPort},
							},
							ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
								Path: "/fakecoder/admin/config", Port: intstr.FromInt32(AdminPort),
							}}},
						}}},
					},
				},
			},
			&corev1.Service{
				ObjectMeta: metav1.ObjectMeta{Namespace: CoderNamespace, Name: name, Labels: labels},
				Spec: corev1.ServiceSpec{
					Selector: labels,
					Ports: []corev1.ServicePort{
						{Name: "api", Port: CoderPort, TargetPort: intstr.FromInt32(CoderPort)},
						{Name: "admin", Port: AdminPort, TargetPort: intstr.FromInt32(AdminPort)},
					},
				},
			},
		)
	}
	return out
}
