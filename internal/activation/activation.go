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

// Package activation owns which of the provider's gated kinds (every
// managed kind and CleanupRecord) exist on the API server. Under
// Crossplane's SafeStart a kind's CRD appears only once a
// ManagedResourceActivationPolicy activates its ManagedResourceDefinition;
// without Crossplane (`make run`, CRDs applied by hand) every CRD that is
// served counts, since crossplane-runtime's gate (pkg/gate, fed by
// pkg/reconciler/customresourcesgate) watches CRDs, not MRDs. It runs what
// a kind needs (its indexes, its controller, the watches on it) once its
// CRD is served, and answers the rest of the provider whether a kind exists
// yet. It knows no controller: its callers say what to start.
package activation

import (
	"context"
	"slices"
	"sync"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/gate"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"

	"github.com/crossplane-contrib/provider-coder/apis"
	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
)

// CleanupRecord is the GroupVersionKind of the cleanup records, which
// Crossplane activates like a managed kind.
var CleanupRecord = clusterv1alpha1.CleanupRecordGroupVersionKind

// Kinds are the gated kinds and what runs when each is served. A nil
// *Kinds, or one made by All, gates nothing: every kind exists and starts
// at once.
type Kinds struct {
	gate   gate.Gate[schema.GroupVersionKind]
	log    logging.Logger
	mapper meta.RESTMapper
	crds   client.Reader
	all    bool

	mu      sync.RWMutex
	started map[schema.GroupVersionKind]bool
}

// New returns Kinds that start each kind when Set says its CRD is served
// and mapper maps it, and that read the CRDs from crds (the manager's
// cache, which the CRD gate's watch fills) to tell a kind that is not
// served from one not started yet. A nil mapper or crds is not asked.
func New(log logging.Logger, mapper meta.RESTMapper, crds client.Reader) *Kinds {
	return &Kinds{log: log, mapper: mapper, crds: crds, started: map[schema.GroupVersionKind]bool{}}
}

// mapped is how long a served kind may wait for the API server's discovery
// to name it: it follows the CRD's Established condition, by a moment.
var mapped = wait.Backoff{Duration: 100 * time.Millisecond, Factor: 2, Cap: 5 * time.Second, Steps: 30}

// waitMapped waits, bounded by mapped, until the mapper maps gvk. The CRD
// gate opens when the CRD is Established, and the API server's discovery,
// which the manager's REST mapper reads, may not name the kind yet: a
// start then would fail on "no matches for kind".
func (k *Kinds) waitMapped(gvk schema.GroupVersionKind) error {
	if k.mapper == nil {
		return nil
	}
	var last error
	err := wait.ExponentialBackoffWithContext(context.Background(), mapped, func(context.Context) (bool, error) {
		_, last = k.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		return last == nil, nil
	})
	if err != nil {
		return errors.Wrapf(last, "the API server does not serve the kind although its CRD is established")
	}
	return nil
}

// All returns Kinds where every kind exists and starts at once: for a
// provider that may not watch CRDs, which then runs as before SafeStart.
func All(log logging.Logger) *Kinds {
	k := New(log, nil, nil)
	k.all = true
	return k
}

// Register implements crossplane-runtime's controller.Gate.
func (k *Kinds) Register(fn func(), gvks ...schema.GroupVersionKind) {
	k.gate.Register(fn, gvks...)
}

// Set implements crossplane-runtime's controller.Gate: the CRD gate
// reconciler says whether a kind's CRD is established and served.
func (k *Kinds) Set(gvk schema.GroupVersionKind, served bool) bool {
	return k.gate.Set(gvk, served)
}

// OnServed runs start once, when gvk's CRD is served; once start succeeds
// the kind exists for Exists. Start registers what must be in place before
// anyone reads the kind (its field indexes) first. A start that fails is
// logged, and the kind stays absent: a provider that cannot start a kind
// must not count it. Kinds made by All run start now and return its error.
// A gvk without a group, version or kind is refused: no CRD serves it, so
// its start would never run and nothing would say so.
func (k *Kinds) OnServed(gvk schema.GroupVersionKind, start func() error) error {
	if gvk.Group == "" || gvk.Version == "" || gvk.Kind == "" {
		return errors.Errorf("cannot gate the kind %q on its CRD: it has no group, version or kind", gvk)
	}
	if k.all {
		return start()
	}
	k.Register(func() {
		err := k.waitMapped(gvk)
		if err == nil {
			err = start()
		}
		if err != nil {
			k.log.Info("Cannot start what serves a kind whose CRD is served; the provider treats the kind as inactive", "kind", gvk.String(), "error", err)
			return
		}
		k.mu.Lock()
		k.started[gvk] = true
		k.mu.Unlock()
		k.log.Info("Kind is active: its controller and watches started", "kind", gvk.String())
	}, gvk)
	return nil
}

// Exists says whether gvk's CRD is served and what serves it has started.
func (k *Kinds) Exists(gvk schema.GroupVersionKind) bool {
	if k == nil || k.all {
		return true
	}
	k.mu.RLock()
	defer k.mu.RUnlock()
	return k.started[gvk]
}

// Managed are the managed kinds that exist, in apis.ManagedKinds' order.
func (k *Kinds) Managed() []apis.ManagedKind {
	return Existing(apis.ManagedKinds(), k.Exists)
}

// Counted are the managed kinds whose resources count as a
// ProviderConfig's dependents: those that exist. It fails while a managed
// kind the API server serves has not started (the provider is starting, or
// the kind was just activated): counting without it would miss its
// resources, and a deleting ProviderConfig would let go of them.
func (k *Kinds) Counted(ctx context.Context) ([]apis.ManagedKind, error) {
	if k == nil || k.all || k.crds == nil {
		return k.Managed(), nil
	}
	l := &apiextensionsv1.CustomResourceDefinitionList{}
	if err := k.crds.List(ctx, l); err != nil {
		return nil, errors.Wrap(err, "cannot list the CRDs that say which managed kinds exist")
	}
	var served []schema.GroupVersionKind
	for i := range l.Items {
		served = append(served, Served(&l.Items[i])...)
	}
	if p := Pending(apis.ManagedKinds(), served, k.Exists); len(p) > 0 {
		return nil, errors.Errorf("cannot count the managed resources yet: the API server serves %s, whose controller has not started", p)
	}
	return k.Managed(), nil
}

// Served are the kinds a CRD serves: none while it is not Established, or
// is being deleted (as crossplane-runtime's CRD gate decides).
func Served(crd *apiextensionsv1.CustomResourceDefinition) []schema.GroupVersionKind {
	if crd.GetDeletionTimestamp() != nil || !slices.ContainsFunc(crd.Status.Conditions, func(c apiextensionsv1.CustomResourceDefinitionCondition) bool {
		return c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue
	}) {
		return nil
	}
	var out []schema.GroupVersionKind
	for _, v := range crd.Spec.Versions {
		if v.Served {
			out = append(out, schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind})
		}
	}
	return out
}

// Pending are the kinds of all that served names and that have not
// started, in all's order.
func Pending(all []apis.ManagedKind, served []schema.GroupVersionKind, started func(schema.GroupVersionKind) bool) []schema.GroupVersionKind {
	var out []schema.GroupVersionKind
	for _, k := range all {
		if slices.Contains(served, k.GVK) && !started(k.GVK) {
			out = append(out, k.GVK)
		}
	}
	return out
}

// Existing are the kinds of all that exists says exist, in order.
func Existing(all []apis.ManagedKind, exists func(schema.GroupVersionKind) bool) []apis.ManagedKind {
	out := make([]apis.ManagedKind, 0, len(all))
	for _, k := range all {
		if exists(k.GVK) {
			out = append(out, k)
		}
	}
	return out
}

// CreateRefused says why a managed resource may create nothing in Coder:
// the ProviderConfig's refusal (pc) first, else an inactive CleanupRecord
// kind, since every create writes its cleanup record first and a create
// without one could leave an object in Coder nothing accounts for. Empty
// when the create may go ahead.
func CreateRefused(pc string, recordsExist bool) string {
	switch {
	case pc != "":
		return pc
	case !recordsExist:
		return MsgRecordsInactive
	default:
		return ""
	}
}

// MsgRecordsInactive is what a resource says while CleanupRecord is
// inactive.
const MsgRecordsInactive = "the CleanupRecord kind (cleanuprecords.coder.crossplane.io) is not active, and every create in Coder writes its cleanup record first: " +
	"activate it in a ManagedResourceActivationPolicy (docs/how-to/install.md)"
