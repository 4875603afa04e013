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

package main

import (
	"context"
	"fmt"
	"hash/crc32"
	"os"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	namespacedv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"
)

// A lifecycle is what one run of n resources through the provider cost,
// next to the bare client on the same Coder.
type lifecycle struct {
	Coder string `json:"coder"`
	Kind  string `json:"kind"`
	N     int    `json:"n"`
	Rate  int    `json:"rate"`

	BareCreates float64 `json:"bareCreatesPerSecond"`
	BareDeletes float64 `json:"bareDeletesPerSecond"`
	Creates     float64 `json:"createsPerSecond"`
	Deletes     float64 `json:"deletesPerSecond"`

	// Per resource: Coder requests by "METHOD endpoint" while creating
	// and while deleting; Kubernetes writes by "verb resource" over the
	// whole life; reconciles while creating and while deleting.
	CoderCreate      map[string]float64 `json:"coderRequestsPerCreate"`
	CoderDelete      map[string]float64 `json:"coderRequestsPerDelete"`
	Writes           map[string]int     `json:"kubernetesWrites"`
	ReconcilesCreate float64            `json:"reconcilesPerCreate"`
	ReconcilesDelete float64            `json:"reconcilesPerDelete"`

	CPU     float64 `json:"cpuSeconds"`
	PeakRSS float64 `json:"peakRSSMiB"`
	// Bed is the CPU seconds of every process of the test bed while the
	// provider created and deleted (bench: the benchmark, with the fake
	// Coder in it).
	Bed map[string]float64 `json:"cpuSecondsByProcess"`
	// APIServerMs is kube-apiserver's CPU milliseconds per resource, from
	// Bed: what the provider's lifecycle of one resource costs the API
	// server (derive.go).
	APIServerMs float64 `json:"kubeAPIServerCPUMsPerLifecycle"`
}

func (l lifecycle) writesPerResource() float64 {
	t := 0
	for _, v := range l.Writes {
		t += v
	}
	return float64(t) / float64(l.N)
}

// A session is one provider process on one Coder, with one namespace and
// a Ready ProviderConfig "default" in it.
type session struct {
	b  *bed
	c  coderBed
	p  *proc
	ns string
}

func (b *bed) session(ctx context.Context, c coderBed, ns string, flags ...string) (*session, error) {
	p, err := b.startProvider(ctx, ns, flags...)
	if err != nil {
		return nil, err
	}
	s := &session{b: b, c: c, p: p, ns: ns}
	if err := s.providerConfig(ctx, ns); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// providerConfig creates ns, a token Secret and the ProviderConfig
// "default" in it, and waits for it to be Ready.
func (s *session) providerConfig(ctx context.Context, ns string) error {
	kube := s.b.kube
	objs := []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "coder-token"}, StringData: map[string]string{testenv.TokenKey: s.c.token}},
		&namespacedv1alpha1.ProviderConfig{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "default"},
			Spec: common.LocalProviderConfigSpec{URL: s.c.url, Credentials: common.LocalCredentials{
				Source: common.CredentialsSourceSecret, SecretRef: &common.LocalSecretKeySelector{Name: "coder-token", Key: testenv.TokenKey},
			}},
		},
	}
	for _, o := range objs {
		if err := kube.Create(ctx, o); err != nil {
			return fmt.Errorf("cannot create %T %s: %w", o, o.GetName(), err)
		}
	}
	pc := &namespacedv1alpha1.ProviderConfig{}
	return wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		if err := kube.Get(ctx, client.ObjectKey{Namespace: ns, Name: "default"}, pc); err != nil {
			return false, nil
		}
		return pc.GetCondition("Ready").Status == corev1.ConditionTrue, nil
	})
}

// platformConfig gives c a cluster-scoped ProviderConfig, as a platform
// team keeps one per Coder: the sweep deletes through it what a namespace's
// keys left in Coder once their own ProviderConfig is gone with the
// namespace. Without it, the records of keys released without a delete
// (a namespace of 500 keys whose deletes outlast its ProviderConfig's
// bounds) would stand Abandoned, and a drain would wait on them. It is
// made once per Coder URL; a later call finds it.
func (b *bed) platformConfig(ctx context.Context, c coderBed) error {
	ns, name := "bench-platform", fmt.Sprintf("bench-platform-%c-%08x", c.tag, crc32.ChecksumIEEE([]byte(c.url)))
	objs := []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, StringData: map[string]string{testenv.TokenKey: c.token}},
		&clusterv1alpha1.ProviderConfig{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: common.ProviderConfigSpec{URL: c.url, Credentials: common.Credentials{
				Source: common.CredentialsSourceSecret, SecretRef: &common.SecretKeySelector{
					LocalSecretKeySelector: common.LocalSecretKeySelector{Name: name, Key: testenv.TokenKey}, Namespace: ns,
				},
			}},
		},
	}
	for _, o := range objs {
		err := b.kube.Create(ctx, o)
		if err = client.IgnoreAlreadyExists(err); err != nil {
			return fmt.Errorf("cannot create %T %s: %w", o, o.GetName(), err)
		}
	}
	return nil
}

func (s *session) close() {
	s.p.stop()
	_ = s.b.kube.Delete(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: s.ns}})
}

// create creates the objects (16 at once, as a GitOps sync would) and
// waits until all of them exist.
func (s *session) create(ctx context.Context, objs []*unstructured.Unstructured) error {
	return parallel(len(objs), 16, func(i int) error {
		gvr := gvrOf(objs[i])
		_, err := s.b.dyn.Resource(gvr).Namespace(objs[i].GetNamespace()).Create(ctx, objs[i], metav1.CreateOptions{})
		return err
	})
}

func (s *session) delete(ctx context.Context, gvr schema.GroupVersionResource, names []string) error {
	return parallel(len(names), 16, func(i int) error {
		return s.b.dyn.Resource(gvr).Namespace(s.ns).Delete(ctx, names[i], metav1.DeleteOptions{})
	})
}

func gvrOf(u *unstructured.Unstructured) schema.GroupVersionResource {
	switch u.GetKind() {
	case "Secret":
		return corev1.SchemeGroupVersion.WithResource("secrets")
	case "AIProvider":
		return providers.gvr
	default:
		return keys.gvr
	}
}

// auditOffset is the audit log's size now: writes are counted from it.
func (b *bed) auditOffset() int64 {
	fi, err := os.Stat(b.audit)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// runLifecycle creates n resources of k through a provider running at
// rate, waits for all to be Ready, deletes them, waits for all to be gone
// and checks Coder has none left; then does the same with the bare
// client.
func (b *bed) runLifecycle(ctx context.Context, c coderBed, k kind, n, rate int, id string) (lifecycle, error) {
	l := lifecycle{Coder: c.name, Kind: k.name, N: n, Rate: rate}
	s, err := b.session(ctx, c, id, fmt.Sprintf("--max-reconcile-rate=%d", rate))
	if err != nil {
		return l, err
	}
	defer s.close()
	if err := s.create(ctx, k.prep(id)); err != nil {
		return l, err
	}
	t := track(ctx, b.dyn, k.gvr, id)
	defer t.stop()

	objs, names := objectsOf(k, id, id, n)
	deadline, cancel := context.WithTimeout(ctx, 30*time.Minute)
	defer cancel()

	s0, err := scrape(ctx, s.p.metrics)
	if err != nil {
		return l, err
	}
	u0, _ := s.p.usage()
	bed0 := cpuByProcess()
	off := b.auditOffset()

	start := time.Now()
	if err := s.create(ctx, objs); err != nil {
		return l, err
	}
	ready := t.until(deadline, func(_, r, _ int) bool { return r == n })
	if ready.IsZero() {
		_, r, _ := t.counts()
		return l, fmt.Errorf("%s: %d of %d %s Ready after 30 minutes; provider log %s", id, r, n, k.name, s.p.log)
	}
	l.Creates = float64(n) / ready.Sub(start).Seconds()
	s1, err := scrape(ctx, s.p.metrics)
	if err != nil {
		return l, err
	}

	start = time.Now()
	if err := s.delete(ctx, k.gvr, names); err != nil {
		return l, err
	}
	gone := t.until(deadline, func(e, _, _ int) bool { return e == 0 })
	if gone.IsZero() {
		e, _, _ := t.counts()
		return l, fmt.Errorf("%s: %d of %d %s left after 30 minutes; provider log %s", id, e, n, k.name, s.p.log)
	}
	l.Deletes = float64(n) / gone.Sub(start).Seconds()
	s2, err := scrape(ctx, s.p.metrics)
	if err != nil {
		return l, err
	}
	u2, _ := s.p.usage()
	l.Bed = minus(cpuByProcess(), bed0)
	// Our own writes land in the audit log after their answer.
	time.Sleep(time.Second)
	w, err := b.writes(off, s.ns)
	if err != nil {
		return l, err
	}
	left, err := k.remaining(ctx, c.sdk(), id+"-")
	if err != nil {
		return l, err
	}
	if left != 0 {
		return l, fmt.Errorf("%s: %d %s left in Coder after their resources were deleted", id, left, k.name)
	}

	cr, dl := s1.since(s0), s2.since(s1)
	l.CoderCreate, l.CoderDelete = per(cr.coder, n), per(dl.coder, n)
	l.ReconcilesCreate, l.ReconcilesDelete = managedReconciles(cr.reconciles)/float64(n), managedReconciles(dl.reconciles)/float64(n)
	l.Writes = w
	l.CPU, l.PeakRSS = u2.CPU-u0.CPU, u2.PeakRSS

	l.BareCreates, l.BareDeletes, err = bareRun(ctx, c.sdk(), k, "bare-"+id, n)
	return l, err
}

func per(m map[string]float64, n int) map[string]float64 {
	out := make(map[string]float64, len(m))
	for k, v := range m {
		out[k] = v / float64(n)
	}
	return out
}

func mustUnstructured(o runtime.Object) *unstructured.Unstructured {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
	if err != nil {
		panic(err)
	}
	return &unstructured.Unstructured{Object: m}
}
