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
	"slices"
	"time"

	"github.com/coder/coder/v2/codersdk"

	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/deletion"
	"github.com/crossplane-contrib/provider-coder/internal/policy"
)

// gather builds the rotation state from Coder's keys, the connection
// Secret, the cleanup records and the resource.
func (e *external) gather(ctx context.Context, k Resource, keys []ownKey, recorded deletion.Set, id string) (RotationState, map[string]codersdk.AIGatewayKey, error) {
	rs := rotationSettings(k.KeyParameters())
	a := k.GetAnnotations()
	st := RotationState{
		ExternalName: id, Requested: a[RotateAnnotation], Handled: a[RotatedAnnotation],
		Every: rs.every, Settle: rs.settle, MaxSettle: rs.maxSettle, Now: e.now(), Clock: e.coder.Clock(),
	}
	byID := make(map[string]codersdk.AIGatewayKey, len(keys))
	for _, c := range keys {
		byID[c.ID.String()] = c.AIGatewayKey
		st.Keys = append(st.Keys, Key{
			Counter: c.counter, ID: c.ID.String(), Name: c.Name, Prefix: c.KeyPrefix,
			CreatedAt: c.CreatedAt, LastHeartbeatAt: c.LastHeartbeatAt,
		})
	}
	published, err := e.published(ctx, k, keys, id)
	if err != nil {
		return RotationState{}, nil, err
	}
	st.Published = published
	// Only a key the resource created had a plaintext for it to publish,
	// and only a resource that may delete replaces one whose plaintext
	// was lost.
	_, writes := deletion.ConnectionSecret(k)
	st.WritesSecret = writes && policy.MayDelete(k) && !slices.ContainsFunc(keys, func(c ownKey) bool { return !c.derived })
	st.Records = recorded.Rotations(e.kind)
	if len(keys) > 1 {
		// A rotation is under way: the workloads that read the Secret
		// move to the serving key.
		if st.RestartPending, err = e.restartPending(ctx, k, published); err != nil {
			return RotationState{}, nil, err
		}
	}
	return st, byID, nil
}

// settings are a key's rotation settings, defaults applied.
type settings struct {
	// every is zero when rotations are on demand only.
	every, settle, maxSettle time.Duration
}

// rotationSettings returns the rotation settings of p: rotation.every, the
// settle window, and the longest a retiring key in use is kept.
func rotationSettings(p *common.AIGatewayKeyParameters) settings {
	s := settings{settle: DefaultSettleWindow, maxSettle: DefaultMaxSettleWindow}
	if r := p.Rotation; r != nil {
		if r.Every != nil {
			s.every = r.Every.Duration
		}
		if r.SettleWindow != nil {
			s.settle = r.SettleWindow.Duration
		}
		if r.MaxSettleWindow != nil {
			s.maxSettle = r.MaxSettleWindow.Duration
		}
	}
	s.maxSettle = max(s.maxSettle, s.settle)
	return s
}
