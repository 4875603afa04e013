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
	"path/filepath"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-coder/test/framework/crds"
	"github.com/crossplane-contrib/provider-coder/test/framework/packagerbac"
)

// Images and the package, as the cluster knows them. Crossplane v2.2 and
// later ask the registry for a tag's digest before they look in the package
// cache (crossplane-runtime's xpkg.CachedClient.Get: "cannot resolve ... to
// digest"), and no registry answers here; so the Provider names the package
// by the digest of the .xpkg's image (PackageRef), and the cache holds it
// under Crossplane's id for that digest (PackageCacheID). The pod would run
// PackageSource@digest, which the node does not hold by that name (kind load
// imports the image by its tag, and containerd writes a manifest of its own,
// of another digest), so the DeploymentRuntimeConfig runs PackageImage.
const (
	PackageSource = "xpkg.crossplane.io/crossplane-contrib/provider-coder"
	PackageImage  = PackageSource + ":e2e"
	CoderImage    = "provider-coder.local/fakecoder:e2e"
	// nodeCacheDir is where the kind node mounts the host's package cache
	// (cluster/kind/config.yaml).
	nodeCacheDir = "/var/local/crossplane-package-cache"
	cacheClaim   = "package-cache"
)

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

// PackageCache is the volume Crossplane reads packages from: a directory of
// the kind node, which is a directory of the host.
func PackageCache() []client.Object {
	return []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ProviderNamespace}},
		&corev1.PersistentVolume{
			ObjectMeta: metav1.ObjectMeta{Name: "crossplane-package-cache"},
			Spec: corev1.PersistentVolumeSpec{
				Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
				AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
				StorageClassName:              "manual",
				PersistentVolumeSource: corev1.PersistentVolumeSource{
					HostPath: &corev1.HostPathVolumeSource{Path: nodeCacheDir, Type: ptr.To(corev1.HostPathDirectory)},
				},
				ClaimRef: &corev1.ObjectReference{Namespace: ProviderNamespace, Name: cacheClaim},
			},
		},
		&corev1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{Namespace: ProviderNamespace, Name: cacheClaim},
			Spec: corev1.PersistentVolumeClaimSpec{
				AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				StorageClassName: ptr.To("manual"),
				VolumeName:       "crossplane-package-cache",
				Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
			},
		},
	}
}

// PackageRef names the package by the digest of its image, as a registry
// would serve it.
func PackageRef(digest string) string { return PackageSource + "@" + digest }

// PackageCacheID is Crossplane's id in its package cache for PackageRef(digest).
func PackageCacheID(digest string) string { return friendlyID(PackageSource, digest) }

// friendlyID is crossplane-runtime's xpkg.FriendlyID (v2.3.3, the release
// Crossplane v2.3.4 builds with): the first 50 characters of the source and
// 12 of the digest, as a DNS label. Importing pkg/xpkg would add its
// signature verifiers' dependencies (sigstore, cloud SDKs) to the module
// for these lines; the kind run fails at "install the provider package"
// if they drift.
func friendlyID(source, digest string) string {
	s := source[:min(len(source), 50)] + "-" + digest[:min(len(digest), 12)]
	var b strings.Builder
	for i := range len(s) {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
			b.WriteByte(c)
		case (c == '.' || c == '/' || c == ':' || c == '-') && i != 0 && i != 62 && i != len(s)-1:
			b.WriteByte('-')
		}
		if i == 62 {
			break
		}
	}
	return strings.Trim(b.String(), "-")
}

// CachePath is where Crossplane looks for the package id in the cache
// directory dir: the id as a path, its extension (if any) replaced by .gz.
func CachePath(dir, id string) string {
	full := filepath.Join(dir, id)
	return strings.TrimSuffix(full, filepath.Ext(full)) + ".gz"
}

// ProviderPackage installs the provider from the cache by the digest of its
// image, runs PackageImage as packagerbac's ServiceAccount with ProviderArgs,
// and binds it the package's extra RBAC (examples/install/rbac.yaml), which
// Crossplane v2 does not grant.
func ProviderPackage(pkg packagerbac.Package, digest string) []client.Object {
	drc := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "pkg.crossplane.io/v1beta1",
		"kind":       "DeploymentRuntimeConfig",
		"metadata":   map[string]any{"name": ProviderName},
		"spec": map[string]any{
			"serviceAccountTemplate": map[string]any{"metadata": map[string]any{"name": packagerbac.ServiceAccountName}},
			"deploymentTemplate": map[string]any{"spec": map[string]any{
				"selector": map[string]any{},
				"template": map[string]any{"spec": map[string]any{
					"containers": []any{map[string]any{"name": "package-runtime", "image": PackageImage, "args": toAny(ProviderArgs())}},
				}},
			}},
		},
	}}
	prov := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "pkg.crossplane.io/v1",
		"kind":       "Provider",
		"metadata":   map[string]any{"name": ProviderName},
		"spec": map[string]any{
			"package":           PackageRef(digest),
			"packagePullPolicy": "Never",
			"runtimeConfigRef":  map[string]any{"name": ProviderName},
		},
	}}
	// Crossplane binds its own role; the extra one is the operator's.
	return []client.Object{drc, prov, pkg.ExtraClusterRole(), pkg.ExtraBinding.DeepCopy()}
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
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
