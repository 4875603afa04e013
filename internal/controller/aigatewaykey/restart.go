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

package aigatewaykey

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/deletion"
	"github.com/crossplane-contrib/provider-coder/internal/metrics"
)

// RestartedForKeyAnnotation is the pod template annotation a rotation sets
// on the workloads of rotation.restart: the id of the key they should run
// on. Changing it rolls the workload, as kubectl rollout restart's own
// annotation does.
const RestartedForKeyAnnotation = "coder.crossplane.io/restarted-for-key"

// The condition a retiring key still in use sets.
const (
	TypeRetiringKeyInUse xpv2.ConditionType   = "RetiringKeyInUse"
	ReasonHeartbeating   xpv2.ConditionReason = "Heartbeating"
	ReasonNotInUse       xpv2.ConditionReason = "NotInUse"
)

const (
	errReadWorkload = "cannot read %s %s/%s of rotation.restart"
	// errFmtRestart names the RBAC the restart needs.
	errFmtRestart = "cannot restart %s %s/%s of rotation.restart (the provider needs get and patch on apps %s in %s: docs/how-to/rotate-gateway-keys.md)"
)

// workload is the unstructured object of a workload of rotation.restart, in
// namespace ns.
func workload(w common.WorkloadReference, ns string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("apps/v1")
	u.SetKind(string(w.Kind))
	u.SetNamespace(ns)
	u.SetName(w.Name)
	return u
}

// restartTargets are the workloads of k's rotation.restart and their
// namespace, the connection Secret's: they read the key from it. None when
// k writes no Secret.
func restartTargets(k Resource) ([]common.WorkloadReference, string) {
	r := k.KeyParameters().Rotation
	nn, ok := deletion.ConnectionSecret(k)
	if r == nil || !ok {
		return nil, ""
	}
	return r.Restart, nn.Namespace
}

// workloadName is how a workload is named in events, errors and the plan.
func workloadName(w common.WorkloadReference) string {
	return string(w.Kind) + "/" + w.Name
}

// restartPending returns the workloads of rotation.restart whose pod
// template does not name the key id yet, read past the cache (the provider
// watches no workloads). A workload that does not exist runs no replica; one
// the provider may not read is pending, so the restart reports why.
func (e *external) restartPending(ctx context.Context, k Resource, id string) ([]string, error) {
	targets, ns := restartTargets(k)
	if id == "" || len(targets) == 0 {
		return nil, nil
	}
	var pending []string
	for _, w := range targets {
		u := workload(w, ns)
		err := e.reader.Get(ctx, client.ObjectKeyFromObject(u), u)
		switch {
		case kerrors.IsNotFound(err):
			continue
		case kerrors.IsForbidden(err):
			pending = append(pending, workloadName(w))
			continue
		case err != nil:
			return nil, errors.Wrapf(err, errReadWorkload, w.Kind, ns, w.Name)
		}
		got, _, _ := unstructured.NestedString(u.Object, "spec", "template", "metadata", "annotations", RestartedForKeyAnnotation)
		if got != id {
			pending = append(pending, workloadName(w))
		}
	}
	return pending, nil
}

// restart rolls the workloads of p.Restart onto the serving key: it sets
// their pod template annotation to the key's id, so their pods restart and
// read the new key from the Secret. The retiring key waits for their
// heartbeats to stop (DecideRotation).
func (e *external) restart(ctx context.Context, k Resource, p RotationPlan) error {
	targets, ns := restartTargets(k)
	body, err := json.Marshal(map[string]any{"spec": map[string]any{"template": map[string]any{
		"metadata": map[string]any{"annotations": map[string]string{RestartedForKeyAnnotation: p.Current.ID}},
	}}})
	if err != nil {
		return err
	}
	var done []string
	for _, w := range targets {
		name := workloadName(w)
		if !slices.Contains(p.Restart, name) {
			continue
		}
		if err := e.kube.Patch(ctx, workload(w, ns), client.RawPatch(types.MergePatchType, body)); err != nil && !kerrors.IsNotFound(err) {
			return errors.Wrapf(err, errFmtRestart, w.Kind, ns, w.Name, strings.ToLower(string(w.Kind))+"s", ns)
		}
		done = append(done, name)
	}
	e.log.Info("Restarted the workloads of rotation.restart onto the new key", "counter", p.Current.Counter, "keyPrefix", p.Current.Prefix, "workloads", done)
	e.record.Event(k, event.Normal(ReasonWorkloadsRestarted, fmt.Sprintf(
		"Restarted %s in %s onto key %s...; key %s... is deleted once their heartbeats stop, by %s at the latest",
		strings.Join(done, ", "), ns, p.Current.Prefix, p.Retiring[0].Prefix, p.RevokeBy.UTC().Format(time.RFC3339))))
	return nil
}

// observeInUse sets the condition RetiringKeyInUse while a retiring key is
// kept past its settle window because it still has heartbeats, with a
// Warning event when it starts; once nothing is kept in use, a condition
// set before turns False.
func (e *external) observeInUse(k Resource, p RotationPlan) {
	was := k.GetCondition(TypeRetiringKeyInUse).Status == corev1.ConditionTrue
	if !p.InUse {
		if was {
			k.SetConditions(xpv2.Condition{Type: TypeRetiringKeyInUse, Status: corev1.ConditionFalse, Reason: ReasonNotInUse,
				LastTransitionTime: metav1.NewTime(e.now())})
		}
		return
	}
	msg := fmt.Sprintf("The settle window ended at %s, but retiring key %s... still has heartbeats (last %s, Coder's clock): gateway replicas still use it. "+
		"It is deleted once they stop for %s, or at %s in any case (rotation.maxSettleWindow). Restart the replicas that read the connection Secret "+
		"(kubectl rollout restart, or rotation.restart) so they load key %s...",
		p.RetiresAt.UTC().Format(time.RFC3339), p.Retiring[0].Prefix, lastBeat(p.Retiring), inUseFor, p.RevokeBy.UTC().Format(time.RFC3339), p.Current.Prefix)
	k.SetConditions(xpv2.Condition{Type: TypeRetiringKeyInUse, Status: corev1.ConditionTrue, Reason: ReasonHeartbeating, Message: msg,
		LastTransitionTime: metav1.NewTime(e.now())})
	if !was {
		metrics.RetiringKeyInUse(e.kind, metrics.InUseKept)
		e.record.Event(k, event.Warning(ReasonRetiringKeyInUse, errors.New(msg)))
	}
}
