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

package credentials

import (
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"

	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
)

// A Config is what the decision needs to know of one ProviderConfig.
type Config struct {
	Ref providerconfig.Ref
	// Secrets the ProviderConfig reads: its token Secret and CA Secret.
	Secrets []types.NamespacedName
	// Deleting: the ProviderConfig has a deletion timestamp.
	Deleting bool
	// Holding: it still carries the hold finalizer, so its dependents may
	// still need its credentials to delete their objects in Coder.
	Holding bool
	// Bounds are its hold's bounds (spec.deletion).
	Bounds providerconfig.Bounds
	// Dependents are the managed resources that use it, as the hold counts
	// them; read only for a ProviderConfig that stands while a Secret it
	// reads is being deleted.
	Dependents []providerconfig.Dependent
}

// ConfigOf is the decision's view of a ProviderConfig of any kind, without
// its dependents.
func ConfigOf(pc providerconfig.Object) Config {
	conn := providerconfig.ConnectionOf(pc)
	c := Config{
		Ref:      providerconfig.RefOfConfig(pc),
		Deleting: pc.GetDeletionTimestamp() != nil,
		Holding:  meta.FinalizerExists(pc, providerconfig.HoldFinalizer),
		Bounds:   providerconfig.BoundsFrom(conn.Deletion),
	}
	for _, s := range conn.Secrets() {
		c.Secrets = append(c.Secrets, s.NamespacedName())
	}
	return c
}

// released reports whether a ProviderConfig no longer needs its Secrets: it
// is being deleted and its hold has let go.
func (c Config) released() bool { return c.Deleting && !c.Holding }

// reads reports whether the ProviderConfig reads the Secret.
func (c Config) reads(secret types.NamespacedName) bool { return slices.Contains(c.Secrets, secret) }

// A Secret is what the decision needs to know of the Secret.
type Secret struct {
	Name types.NamespacedName
	// DeletedAt is its deletion timestamp; zero while it is not being
	// deleted.
	DeletedAt time.Time
	// NamespaceDeleting: its namespace is being deleted.
	NamespaceDeleting bool
}

// A Decision is whether a Secret keeps the credentials finalizer.
type Decision struct {
	// Needed: it keeps the finalizer.
	Needed bool
	// By is the first ProviderConfig that needs it, for the log.
	By providerconfig.Ref
	// RequeueAfter is when to decide again because a bound passes then;
	// zero when only a change of the Secret or of a ProviderConfig can
	// change the decision.
	RequeueAfter time.Duration
	// LetGo are the ProviderConfigs that stand and read the Secret, which
	// is being deleted, and whose bounds passed: once it is released they
	// cannot reach Coder until it exists again.
	LetGo []providerconfig.Ref
	// Why is the hold's reason the last of LetGo let go (providerconfig.Why...).
	Why string
}

// Decide decides whether the Secret keeps the credentials finalizer. It
// keeps it while some ProviderConfig, of any kind, reads it as its token or
// CA Secret and has not let go:
//   - one being deleted, until its hold lets go (the hold's own bounds);
//   - one that stands, while the Secret is not being deleted; once it is,
//     for that ProviderConfig's hold bounds over its dependents, counted
//     from the Secret's deletion (providerconfig.Decide): the deleting dependents
//     finish their deletes with it, and then the namespace that holds it
//     (a ClusterProviderConfig's Secret when Coder is uninstalled), or the
//     hand that deleted it, does not wait on somebody deleting the
//     ProviderConfig. What the dependents could not delete is left to their
//     cleanup records.
func Decide(s Secret, configs []Config, now time.Time) Decision {
	var d Decision
	for _, c := range configs {
		if c.released() || !c.reads(s.Name) {
			continue
		}
		if c.Deleting || s.DeletedAt.IsZero() {
			d.need(c.Ref, 0)
			continue
		}
		in := providerconfig.Input{
			Now: now, DeletedAt: s.DeletedAt, Dependents: c.Dependents,
			NamespaceDeleting: s.NamespaceDeleting, Bounds: c.Bounds,
		}
		if s.NamespaceDeleting {
			// Its dependents there are deleted with the namespace.
			in.DeletingNamespaces = map[string]bool{s.Name.Namespace: true}
		}
		h := providerconfig.Decide(in)
		if h.Phase != providerconfig.PhaseReleased {
			d.need(c.Ref, h.RequeueAfter)
			continue
		}
		d.LetGo, d.Why = append(d.LetGo, c.Ref), h.Why
	}
	return d
}

// need notes that ref needs the Secret, deciding again after requeue (zero
// for never by itself).
func (d *Decision) need(ref providerconfig.Ref, requeue time.Duration) {
	if !d.Needed {
		d.Needed, d.By = true, ref
	}
	if requeue > 0 && (d.RequeueAfter == 0 || requeue < d.RequeueAfter) {
		d.RequeueAfter = requeue
	}
}
