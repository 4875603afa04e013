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
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/deletion"
)

// SecretLossWindow is how soon after a lost connection Secret another loss
// counts as the same series: a Secret that something keeps removing.
const SecretLossWindow = time.Hour

// The condition of a connection Secret that keeps being removed: each loss
// starts a rotation, so whatever removes it (a GitOps tool that owns it)
// churns keys and restarts workloads until it is told to leave it alone.
const (
	TypeConnectionSecretLost xpv2.ConditionType   = "ConnectionSecretLost"
	ReasonRemovedRepeatedly  xpv2.ConditionReason = "RemovedRepeatedly"
	ReasonNotRemoved         xpv2.ConditionReason = "NotRemoved"
)

// SecretLosses are a series of lost connection Secrets, each answered by a
// rotation, each within SecretLossWindow of the one before.
type SecretLosses struct {
	Count       int
	First, Last time.Time
}

// Add returns l with one more loss at now; a loss more than
// SecretLossWindow after the last one begins a new series.
func (l SecretLosses) Add(now time.Time) SecretLosses {
	if l.Count == 0 || now.Sub(l.Last) > SecretLossWindow {
		return SecretLosses{Count: 1, First: now, Last: now}
	}
	l.Count++
	l.Last = now
	return l
}

// Repeated reports whether the Secret was lost more than once in a series
// that has not ended by now.
func (l SecretLosses) Repeated(now time.Time) bool {
	return l.Count > 1 && now.Sub(l.Last) <= SecretLossWindow
}

// lossesOf reads the series from status.
func lossesOf(o *common.AIGatewayKeyObservation) SecretLosses {
	r := o.Rotation
	if r == nil || r.FirstSecretLossAt == nil || r.LastSecretLossAt == nil {
		return SecretLosses{}
	}
	return SecretLosses{Count: r.SecretLosses, First: r.FirstSecretLossAt.Time, Last: r.LastSecretLossAt.Time}
}

// noteSecretLost counts a lost Secret that a rotation answered, in status,
// and says so in the condition when it is a repeat.
func (e *external) noteSecretLost(k Resource) {
	o := k.KeyObservation()
	l := lossesOf(o).Add(e.now().UTC().Truncate(time.Second))
	if o.Rotation == nil {
		o.Rotation = &common.AIGatewayKeyRotationObservation{}
	}
	o.Rotation.SecretLosses = l.Count
	o.Rotation.FirstSecretLossAt, o.Rotation.LastSecretLossAt = timePtr(&l.First), timePtr(&l.Last)
	e.observeSecretLosses(k)
}

// observeSecretLosses sets the ConnectionSecretLost condition while a
// series of losses goes on, and clears it an hour after the last. The
// message names the Secret and the count, nothing of its data.
func (e *external) observeSecretLosses(k Resource) {
	l, now := lossesOf(k.KeyObservation()), e.now()
	was := k.GetCondition(TypeConnectionSecretLost).Status == corev1.ConditionTrue
	if !l.Repeated(now) {
		if was {
			k.SetConditions(xpv2.Condition{Type: TypeConnectionSecretLost, Status: corev1.ConditionFalse, Reason: ReasonNotRemoved,
				LastTransitionTime: metav1.NewTime(now)})
		}
		return
	}
	nn, _ := deletion.ConnectionSecret(k)
	msg := fmt.Sprintf("The connection Secret %s was removed %d times in %s; something deletes it (or overwrites its key), e.g. a GitOps tool that owns it: exclude it from that tool. "+
		"Each removal starts a new key and restarts the workloads of rotation.restart; at most %d keys of this resource exist in Coder at once, so the oldest retiring key goes before its settle window ends",
		nn, l.Count, l.Last.Sub(l.First).Round(time.Second), MaxKeys)
	k.SetConditions(xpv2.Condition{Type: TypeConnectionSecretLost, Status: corev1.ConditionTrue, Reason: ReasonRemovedRepeatedly, Message: msg,
		LastTransitionTime: metav1.NewTime(now)})
}
