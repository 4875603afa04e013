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

package interleave

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/crossplane-contrib/provider-coder/internal/controller/aigatewaykey"
	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// do takes one operation and says what it saw.
func (r *run) do(ctx context.Context, op Op) string {
	w := r.plan.World
	switch op.Kind {
	case OpCreate:
		return r.create(ctx, op.Target)
	case OpDelete:
		return deleted(r.kube.Delete(ctx, mrKey(w.MRs[op.Target])))
	case OpStrip:
		return r.strip(ctx, op.Target)
	case OpRotate:
		body, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{
			aigatewaykey.RotateAnnotation: time.Now().Format(time.RFC3339Nano),
		}}})
		return done(r.kube.Patch(ctx, mrKey(w.MRs[op.Target]), client.RawPatch(types.MergePatchType, body)))
	case OpDeletePC:
		p := metav1.DeletePropagationBackground
		if op.Arg == 1 {
			p = metav1.DeletePropagationForeground
		}
		return deleted(r.kube.Delete(ctx, w.pcKey(w.PCs[op.Target]), client.PropagationPolicy(p)))
	case OpRepointPC:
		pc := w.PCs[op.Target]
		return done(r.kube.Patch(ctx, w.pcKey(pc), client.RawPatch(types.MergePatchType, repoint(secretNames[op.Arg]))))
	case OpRepointURL:
		url := r.coder.URL()
		if op.Arg == 1 {
			url = r.bed.Other.URL()
		}
		r.mu.Lock()
		r.repointed[op.Target] = time.Now()
		r.mu.Unlock()
		return deleted(r.kube.Patch(ctx, w.pcKey(w.PCs[op.Target]), client.RawPatch(types.MergePatchType, repointURL(url))))
	case OpCoderLieID:
		return done(r.coder.SetFault(CreateEndpoints[op.Target], fakecoder.Fault{AnswerOtherID: true, Times: 1}))
	case OpOtherMimics:
		return r.mimic()
	case OpDeleteNamespace:
		return deleted(r.kube.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: w.Namespaces[op.Target]}}))
	case OpDeleteSecret:
		s := w.Secrets[op.Target]
		return deleted(r.kube.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: s.Namespace, Name: s.Name}}))
	case OpCoderDown:
		r.down = true
		return done(r.coder.SetDown(true))
	case OpCoderUp:
		if !r.down {
			return "already up"
		}
		r.down = false
		return done(r.coder.SetDown(false))
	case OpCoderSlow:
		for _, ep := range FaultEndpoints {
			if err := r.coder.SetFault(ep, fakecoder.Fault{Latency: time.Duration(op.Arg) * time.Millisecond}); err != nil {
				return "failed: " + err.Error()
			}
		}
		return "ok"
	case OpCoderStatus:
		ep := FaultEndpoints[op.Target]
		// A create that fails after committing, when the status is a
		// gateway's: the write happened, the answer says it did not.
		commit := op.Arg == 502 && (ep == CreateEndpoints[0] || ep == CreateEndpoints[1])
		return done(r.coder.SetFault(ep, fakecoder.Fault{Status: op.Arg, Commit: commit, Times: 3}))
	case OpCoderLoseAnswer:
		return done(r.coder.SetFault(CreateEndpoints[op.Target], fakecoder.Fault{CommitThenTimeout: true, Times: 1}))
	case OpKill:
		return r.kill(ctx, time.Duration(op.Arg)*time.Millisecond)
	case OpPoll:
		time.Sleep(PollInterval)
		return "waited one poll"
	}
	return "unknown operation"
}

func repoint(secret string) []byte {
	body, _ := json.Marshal(map[string]any{"spec": map[string]any{"credentials": map[string]any{"secretRef": map[string]any{"name": secret}}}})
	return body
}

func repointURL(url string) []byte {
	body, _ := json.Marshal(map[string]any{"spec": map[string]any{"url": url}})
	return body
}

func done(err error) string {
	if err != nil {
		return "failed: " + reason(err)
	}
	return "ok"
}

func deleted(err error) string {
	if kerrors.IsNotFound(err) {
		return "not found"
	}
	return done(err)
}

// strip deletes resource i and removes every finalizer from it by hand, as
// an impatient human would.
func (r *run) strip(ctx context.Context, i int) string {
	o := mrKey(r.plan.World.MRs[i])
	if err := r.kube.Delete(ctx, o); err != nil {
		return deleted(err)
	}
	for range 5 {
		if err := r.kube.Get(ctx, client.ObjectKeyFromObject(o), o); err != nil {
			return "gone before the strip"
		}
		if len(o.GetFinalizers()) == 0 {
			return "no finalizer left to strip"
		}
		uid := o.GetUID()
		// Only removing the provider's own finalizer takes the release
		// from it. Once the provider has removed it (a release racing the
		// strip), the others the harness removes are not the provider's
		// business, and the provider's release stands.
		ours := slices.Contains(o.GetFinalizers(), providerconfig.ManagedFinalizer)
		o.SetFinalizers(nil)
		err := r.kube.Update(ctx, o)
		if err == nil && !ours {
			return "stripped uid " + string(uid) + " after the provider removed its finalizer"
		}
		if err == nil {
			r.mu.Lock()
			r.stripped[uid] = true
			r.mu.Unlock()
			r.watch.strip(uid)
			return "stripped uid " + string(uid)
		}
		if !kerrors.IsConflict(err) {
			return deleted(err)
		}
	}
	return "kept conflicting"
}

// kill kills the provider with SIGKILL, after reading its counter, and
// starts it again after wait.
func (r *run) kill(ctx context.Context, wait time.Duration) string {
	if !r.bed.Provider.Running() {
		return "no provider to kill"
	}
	scrape := r.collectCounter(ctx)
	r.bed.Provider.Kill()
	r.mu.Lock()
	r.kills = append(r.kills, time.Now())
	r.mu.Unlock()
	time.Sleep(wait)
	if err := r.ensureProvider(ctx); err != nil {
		r.violate("the provider does not start again after a kill: %v", err)
		return "killed; does not start again"
	}
	if scrape != nil {
		return fmt.Sprintf("killed (its metrics were unreadable: %v); started again", scrape)
	}
	return "killed; started again"
}

func isReady(o client.Object) bool {
	c, ok := o.(resource.Conditioned)
	return ok && c.GetCondition(xpv2.TypeReady).Status == corev1.ConditionTrue
}

// mimic makes the other Coder a tenant's hostile server: its next creates
// take the ids of every key and provider the run's Coder has now, as a
// server that saw them there would answer. A resource repointed to it then
// holds one of the run's ids under a record of the other Coder, which must
// shield, block or adopt nothing in the run's (the invariants: no leak, no
// duplicate, every release counted).
func (r *run) mimic() string {
	var ids []uuid.UUID
	for _, k := range r.bed.Fake.Keys() {
		ids = append(ids, k.ID)
	}
	for _, p := range r.bed.Fake.Providers(false) {
		ids = append(ids, p.ID)
	}
	r.bed.Other.Mimic(ids...)
	return fmt.Sprintf("the other Coder answers its next %d creates with the run's ids", len(ids))
}
