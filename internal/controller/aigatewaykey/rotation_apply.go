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
	"fmt"
	"strings"
	"time"

	"github.com/coder/coder/v2/codersdk"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"

	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
	"github.com/crossplane-contrib/provider-coder/internal/metrics"
)

// Events of a rotation.
const (
	ReasonKeyRotationStarted event.Reason = "KeyRotationStarted"
	ReasonKeyRotated         event.Reason = "KeyRotated"
	// ReasonConnectionSecretLost: the connection Secret no longer held the
	// committed key's plaintext, so a rotation published a new key.
	ReasonConnectionSecretLost event.Reason = "ConnectionSecretLost"
	// ReasonRetiringKeyInUse: the settle window is over but the retiring
	// key still has heartbeats, so it is kept.
	ReasonRetiringKeyInUse event.Reason = "RetiringKeyInUse"
	// ReasonRetiringKeyRevokedInUse: the retiring key was deleted at the
	// end of rotation.maxSettleWindow while it still had heartbeats.
	ReasonRetiringKeyRevokedInUse event.Reason = "RetiringKeyRevokedInUse"
	// ReasonWorkloadsRestarted: the workloads of rotation.restart were
	// restarted onto the new key.
	ReasonWorkloadsRestarted event.Reason = "WorkloadsRestarted"
	// ReasonRetiringKeyRevokedEarly: the connection Secret was lost again
	// before a rotation settled, so the oldest retiring key was deleted
	// before its window ended, to keep the resource within MaxKeys.
	ReasonRetiringKeyRevokedEarly event.Reason = "RetiringKeyRevokedEarly"
)

// Labels of the rotations metric: how the settle window ended.
const (
	SettleEarly = "early"
	SettleFull  = "full"
)

const (
	errRotateCreate = "cannot create the new AI Gateway key of a rotation"
	errRetireKey    = "cannot delete the retiring AI Gateway key"
	errFinish       = "cannot finish the rotation"
)

// start creates the next key, publishes it and commits to it. Each part may
// be interrupted; DecideRotation resumes from whatever Coder and the Secret
// show: a key nobody holds is discarded, a published one committed.
func (e *external) start(ctx context.Context, k Resource, p RotationPlan) (managed.ExternalUpdate, error) {
	name := RotatedKeyName(k.KeyParameters().NamePrefix, k.GetNamespace(), k.GetName(), string(k.GetUID()), p.Next)
	// The record comes first, as for every create: it must exist before
	// Coder holds the key, an order no return value to the reconciler gives.
	if err := e.records.EnsureRotated(ctx, k, e.kind, p.Next, e.origin, name); err != nil {
		return managed.ExternalUpdate{}, err
	}
	resp, err := e.createKey(ctx, name)
	if err != nil {
		return managed.ExternalUpdate{}, errors.Wrap(err, errRotateCreate)
	}
	// Best effort: a record without the id is swept by name.
	_ = e.records.SetRotatedExternalID(ctx, k, e.kind, p.Next, resp.ID.String())
	details := managed.ConnectionDetails{
		ConnectionKey:               []byte(resp.Key),
		ConnectionKeyPrefix:         []byte(resp.KeyPrefix),
		ConnectionID:                []byte(resp.ID.String()),
		ConnectionName:              []byte(resp.Name),
		ConnectionURL:               []byte(e.url),
		ConnectionPreviousKeyPrefix: []byte(p.Current.Prefix),
	}
	if err := e.publish(ctx, k, details); err != nil {
		return managed.ExternalUpdate{}, err
	}
	if err := e.commit(ctx, k, resp.ID.String()); err != nil {
		return managed.ExternalUpdate{}, err
	}
	rs := rotationSettings(k.KeyParameters())
	cur := codersdk.AIGatewayKey{ID: resp.ID, Name: resp.Name, KeyPrefix: resp.KeyPrefix, CreatedAt: resp.CreatedAt}
	observe(k.KeyObservation(), cur)
	retiresAt, revokeBy := resp.CreatedAt.Add(rs.settle), resp.CreatedAt.Add(rs.maxSettle)
	observeRotation(k.KeyObservation(), RotationPlan{
		Current:   &Key{Counter: p.Next, ID: resp.ID.String(), Prefix: resp.KeyPrefix, CreatedAt: resp.CreatedAt},
		Retiring:  append([]Key{*p.Current}, p.Retiring...),
		StartedAt: resp.CreatedAt, RetiresAt: retiresAt, RevokeBy: revokeBy,
	})
	e.log.Info("Started key rotation", "counter", p.Next, "trigger", p.Trigger, "newKeyPrefix", resp.KeyPrefix, "retiringKeyPrefix", p.Current.Prefix, "retiresAt", retiresAt)
	msg := fmt.Sprintf("Rotation %d (%s): published key %s... to the connection Secret; key %s... stays valid until %s, or until the gateway replicas have moved; while they still use it, until %s at the latest",
		p.Next, p.Trigger, resp.KeyPrefix, p.Current.Prefix, retiresAt.UTC().Format(time.RFC3339), revokeBy.UTC().Format(time.RFC3339))
	if p.Trigger == TriggerSecretLost {
		e.noteSecretLost(k)
		e.record.Event(k, event.Warning(ReasonConnectionSecretLost, errors.Errorf(
			"The connection Secret no longer held the plaintext of key %s... (deleted, or edited by hand or by a sync), so it was not revoked: %s", p.Current.Prefix, msg)))
	} else {
		e.record.Event(k, event.Normal(ReasonKeyRotationStarted, msg))
	}
	// The Secret holds these already; giving them to the reconciler too
	// makes its publish a no-op instead of a partial overwrite.
	return managed.ExternalUpdate{ConnectionDetails: details}, nil
}

// retire deletes the retiring keys once the settle window is over. Their
// absence is verified on a later list, before their records go.
func (e *external) retire(ctx context.Context, k Resource, p RotationPlan) error {
	if err := e.deleteKeys(ctx, k, idsOf(p.Retiring)...); err != nil {
		metrics.ExternalDeleteFailed(e.kind, string(coder.ClassOf(err)))
		return errors.Wrap(err, errRetireKey)
	}
	how := SettleFull
	if p.EarlyEnd {
		how = SettleEarly
	}
	metrics.KeyRotated(e.kind, how)
	// The window's times are Coder's: so is the time it ended.
	after := "unknown"
	if now := e.coder.Clock().At(e.now()); !now.IsZero() {
		after = now.Sub(p.StartedAt).Round(time.Second).String()
	}
	e.log.Info("Settle window ended; deleted the retiring key", "counter", p.Current.Counter, "settle", how,
		"retiringKeyPrefix", p.Retiring[0].Prefix, "window", p.RetiresAt.Sub(p.StartedAt).String(), "after", after, "inUse", p.RevokedInUse)
	if p.RevokedInUse {
		metrics.RetiringKeyInUse(e.kind, metrics.InUseRevoked)
		e.record.Event(k, event.Warning(ReasonRetiringKeyRevokedInUse, errors.Errorf(
			"Deleted retiring key %s... at the end of rotation.maxSettleWindow (%s) although gateway replicas still used it (last heartbeat %s, Coder's clock): they lose their connection within a minute and exit; restart them so they read key %s... from the connection Secret",
			p.Retiring[0].Prefix, p.RevokeBy.Sub(p.StartedAt), lastBeat(p.Retiring), p.Current.Prefix)))
	}
	return nil
}

// retireOldest deletes the oldest retiring keys before their window ends:
// the connection Secret was lost again, and the rotation that answers it
// may not make more than MaxKeys keys. Their absence is verified on a later
// list, before the start; their records go when the rotation finishes.
func (e *external) retireOldest(ctx context.Context, k Resource, p RotationPlan) error {
	if err := e.deleteKeys(ctx, k, idsOf(p.RetireOldest)...); err != nil {
		metrics.ExternalDeleteFailed(e.kind, string(coder.ClassOf(err)))
		return errors.Wrap(err, errRetireKey)
	}
	prefixes := make([]string, 0, len(p.RetireOldest))
	for _, r := range p.RetireOldest {
		prefixes = append(prefixes, r.Prefix+"...")
	}
	e.log.Info("Connection Secret lost again before the rotation settled; deleted the oldest retiring keys early", "counter", p.Current.Counter,
		"retiredKeyPrefixes", prefixes, "maxKeys", MaxKeys)
	e.record.Event(k, event.Warning(ReasonRetiringKeyRevokedEarly, errors.Errorf(
		"The connection Secret no longer held the plaintext of key %s... before the last rotation settled: deleted retiring key %s before its settle window ended, so the new key leaves at most %d keys in Coder; replicas still on it lose their connection and must read the connection Secret again",
		p.Current.Prefix, strings.Join(prefixes, ", "), MaxKeys)))
	return nil
}

// lastBeat is the latest heartbeat of keys, formatted; "none" without one.
func lastBeat(keys []Key) string {
	if t := latestBeat(keys); t != nil {
		return t.UTC().Format(time.RFC3339)
	}
	return "none"
}

// finish runs once the retiring keys are verified gone: the Secret stops
// naming a previous key, and their cleanup records go.
func (e *external) finish(ctx context.Context, k Resource, p RotationPlan) error {
	s, err := e.readSecret(ctx, k)
	if err != nil {
		return err
	}
	if _, ok := secretData(s)[ConnectionPreviousKeyPrefix]; ok {
		// Removed here, not by a nil detail returned to the reconciler: the
		// records go next, and without them no later Observe decides to
		// finish again, so a removal failing after them would stay undone.
		if err := e.publish(ctx, k, managed.ConnectionDetails{ConnectionPreviousKeyPrefix: nil}); err != nil {
			return errors.Wrap(err, errFinish)
		}
	}
	for _, n := range p.Finished {
		if err := e.records.DeleteRotated(ctx, k, e.kind, n); err != nil {
			return errors.Wrap(err, errFinish)
		}
	}
	o := k.KeyObservation()
	retired := ""
	if o.Rotation != nil {
		retired = o.Rotation.RetiringKeyPrefix
	}
	observeRotation(o, p)
	now := metav1.NewTime(e.now().UTC().Truncate(time.Second))
	o.Rotation.LastRotatedAt = &now
	msg := fmt.Sprintf("Rotation %d done: key %s... serves; the retired key is gone from Coder", p.Current.Counter, p.Current.Prefix)
	if retired != "" {
		msg = fmt.Sprintf("Rotation %d done: key %s... serves; the retired key %s... is gone from Coder", p.Current.Counter, p.Current.Prefix, retired)
	}
	e.record.Event(k, event.Normal(ReasonKeyRotated, msg))
	return nil
}

// observeRotation shows the rotation state of p in status.
func observeRotation(o *common.AIGatewayKeyObservation, p RotationPlan) {
	if p.Current == nil {
		return
	}
	if o.Rotation == nil {
		if p.Current.Counter == 0 && len(p.Retiring) == 0 && p.NextRotationAt.IsZero() {
			return
		}
		o.Rotation = &common.AIGatewayKeyRotationObservation{}
	}
	r := o.Rotation
	r.Counter = p.Current.Counter
	r.NextRotationAt = timePtr(&p.NextRotationAt)
	if len(p.Retiring) == 0 {
		r.RetiringKeyID, r.RetiringKeyPrefix, r.StartedAt, r.RetiresAt = "", "", nil, nil
		r.RevokeBy, r.RetiringKeyLastHeartbeatAt = nil, nil
		return
	}
	r.RetiringKeyID, r.RetiringKeyPrefix = p.Retiring[0].ID, p.Retiring[0].Prefix
	r.StartedAt, r.RetiresAt, r.RevokeBy = timePtr(&p.StartedAt), timePtr(&p.RetiresAt), timePtr(&p.RevokeBy)
	last := latestBeat(p.Retiring)
	r.RetiringKeyLastHeartbeatAt = timePtr(last)
}

// latestBeat is the latest heartbeat of keys; nil without one.
func latestBeat(keys []Key) *time.Time {
	var last *time.Time
	for _, k := range keys {
		if k.LastHeartbeatAt != nil && (last == nil || k.LastHeartbeatAt.After(*last)) {
			t := *k.LastHeartbeatAt
			last = &t
		}
	}
	return last
}
