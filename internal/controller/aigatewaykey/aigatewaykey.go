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

// Package aigatewaykey is the one external client for AIGatewayKeys, both
// scopes. A key's Coder-side name is derived from the object, its external
// name is the Coder key id, and its plaintext goes to the connection Secret
// only: never to status, events, logs, metrics or errors.
package aigatewaykey

import (
	"context"
	"time"

	"github.com/coder/coder/v2/codersdk"
	"github.com/google/uuid"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/activation"
	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
	"github.com/crossplane-contrib/provider-coder/internal/controller/managedkind"
	"github.com/crossplane-contrib/provider-coder/internal/deletion"
	"github.com/crossplane-contrib/provider-coder/internal/policy"
	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
)

// Connection detail keys written to writeConnectionSecretToRef.
const (
	ConnectionKey       = "key"
	ConnectionKeyPrefix = "keyPrefix"
	ConnectionID        = "id"
	ConnectionName      = "name"
	ConnectionURL       = "url"
	// ConnectionPreviousKeyPrefix is the prefix of the key a rotation
	// retires, while it is still valid: what operators see retiring.
	ConnectionPreviousKeyPrefix = "previousKeyPrefix"
)

// ReasonUncertainCreateReplaced is the event reason when a key created by an
// earlier attempt whose response was lost is deleted so it can be created
// again: its plaintext is unknown, so it can never be published.
const ReasonUncertainCreateReplaced event.Reason = "UncertainCreateReplaced"

const (
	errListKeys     = "cannot list AI Gateway keys"
	errCreateKey    = "cannot create AI Gateway key"
	errReplaceKey   = "cannot delete the AI Gateway key left by an uncertain create"
	errExternalName = "external name is not a Coder key id"
	// errFmtLostKeyKept names the prefix, never the plaintext.
	errFmtLostKeyKept = "key %s... was created by an earlier attempt whose answer was lost, so its plaintext is unknown; the management policies exclude Delete, so it is not replaced: delete it in Coder, or allow Delete"
)

// A Resource is an AIGatewayKey of either scope.
type Resource interface {
	resource.Managed
	KeyParameters() *common.AIGatewayKeyParameters
	KeyObservation() *common.AIGatewayKeyObservation
}

// DerivedName is the Coder-side name of the key of r.
func DerivedName(r Resource) string {
	return KeyName(r.KeyParameters().NamePrefix, r.GetNamespace(), r.GetName(), string(r.GetUID()))
}

// Options configure the AIGatewayKey controllers; their Keys is the key
// list every key of a ProviderConfig shares.
type Options struct {
	managedkind.Options
}

// Setup adds a controller for the AIGatewayKey kind gvk to the manager.
func Setup(mgr ctrl.Manager, gvk schema.GroupVersionKind, o Options) error {
	kindOpts := o.Options
	c := &connection{
		keys: o.Keys, sent: o.Releases, kube: mgr.GetClient(), reader: activation.Reader(mgr.GetAPIReader()), scheme: mgr.GetScheme(),
		records: o.Records, kind: gvk.Kind, clocks: newClocks(),
	}
	// A settle window ends on time, not up to one poll late.
	kindOpts.PollHook = c.clocks.pollHook
	return managedkind.Setup(mgr, gvk, kindOpts, managedkind.Kind[Resource]{CoderName: DerivedName, External: c.external, Gone: c.clocks.forget})
}

// connection is what the external clients of one AIGatewayKey kind share.
type connection struct {
	keys    *coder.KeyLister
	sent    *deletion.Releases
	kube    client.Client
	reader  client.Reader
	scheme  *runtime.Scheme
	records *deletion.Store
	kind    string
	// clocks is Coder's clock per key, for the poll hook.
	clocks *clocks
}

// external is the client of one key to Coder for one reconcile, through the
// session its ProviderConfig opened.
func (c *connection) external(s providerconfig.Session, log logging.Logger, record event.Recorder) deletion.Live[Resource] {
	return &external{
		coder: s.Client, scope: s.Scope, url: s.URL, keys: c.keys, sent: c.sent, record: record, log: log,
		kube: c.kube, reader: c.reader, scheme: c.scheme,
		records: c.records, kind: c.kind, origin: managedkind.OriginOf(s), createRefused: s.CreateRefused,
		now: time.Now, clocks: c.clocks,
	}
}

// external talks to Coder for one key, through one ProviderConfig, during
// one reconcile: Observe gathers and decides, Update applies the decision.
type external struct {
	coder *coder.Client
	keys  *coder.KeyLister
	// sent is the one memory of the resource's deletes, shared with the
	// pass: the next look lists after Coder answered them.
	sent   *deletion.Releases
	record event.Recorder
	log    logging.Logger
	// scope identifies the ProviderConfig and URL whose key list is shared.
	scope string
	url   string

	kube   client.Client
	reader client.Reader
	scheme *runtime.Scheme
	// records writes the cleanup record of each key a rotation creates.
	records *deletion.Store
	kind    string
	// origin is where a rotation's create goes, as its record names it.
	origin        deletion.Origin
	createRefused string
	// now is our clock; Coder's times meet it only on Coder's clock
	// (coder.Client.Clock).
	now    func() time.Time
	clocks *clocks

	// plan is what Observe decided; Update applies it.
	plan *RotationPlan
	// discards are the keys Create deletes first: their plaintext is
	// lost, and they hold the names a new key takes.
	discards []Key
}

func (e *external) Observe(ctx context.Context, k Resource) (managed.ExternalObservation, error) {
	id := meta.GetExternalName(k)
	if id != "" {
		if _, err := uuid.Parse(id); err != nil {
			return managed.ExternalObservation{}, errors.New(errExternalName)
		}
	}
	list, err := e.list(ctx, k, id)
	if err != nil {
		return managed.ExternalObservation{}, errors.Wrap(err, errListKeys)
	}
	recorded, err := e.records.Of(ctx, k)
	if err != nil {
		return managed.ExternalObservation{}, err
	}
	keys := own(k, list, append(recorded.In(e.origin).ExternalIDs(), id)...)
	e.clocks.set(nameOf(k), e.coder.Clock())
	if err := e.secretWritable(ctx, k); err != nil {
		// Creating or replacing a key now would lose its plaintext.
		return managed.ExternalObservation{}, err
	}
	adopted := false
	if id == "" {
		if id = e.publishedAmong(ctx, k, keys); id == "" {
			return e.observeUncreated(k, keys)
		}
		// The Secret holds this key's plaintext: the key is not lost.
		// This copy of k was read before its create was persisted (the
		// cache lags the API server by a moment), or the create's external
		// name was never persisted. Go on with the key, and let the
		// reconciler persist its id, which fails on a stale copy.
		meta.SetExternalName(k, id)
		adopted = true
	}

	st, byID, err := e.gather(ctx, k, keys, recorded, id)
	if err != nil {
		return managed.ExternalObservation{}, err
	}
	plan := DecideRotation(st)
	if (plan.Action == ActionStart || plan.Action == ActionRetireOldest) && e.createRefused != "" {
		// No new key through a ProviderConfig that takes none, nor an
		// early retire that only makes room for one.
		plan.Action = ActionNone
	}
	e.plan = &plan
	if plan.Current == nil {
		// None of the resource's keys serves: it is created anew, after
		// Create deletes the keys nobody holds, so their names are free.
		if plan.Action == ActionDiscard && policy.MayDelete(k) {
			e.discards = plan.Discard
		}
		return managed.ExternalObservation{ResourceExists: false}, nil
	}
	cur := byID[plan.Current.ID]
	observe(k.KeyObservation(), cur)
	observeRotation(k.KeyObservation(), plan)
	k.SetConditions(xpv2.Available())
	e.observeInUse(k, plan)
	e.observeSecretLosses(k)
	// The plaintext is not among them: Coder returned it once, at create,
	// and the publisher keeps keys it is not given.
	details := managed.ConnectionDetails{
		ConnectionKeyPrefix: []byte(cur.KeyPrefix),
		ConnectionID:        []byte(cur.ID.String()),
		ConnectionName:      []byte(cur.Name),
		ConnectionURL:       []byte(e.url),
	}
	if len(plan.Retiring) > 0 {
		details[ConnectionPreviousKeyPrefix] = []byte(plan.Retiring[0].Prefix)
	}
	e.keepPublished(ctx, k, details)
	return managed.ExternalObservation{
		ResourceExists: true,
		// A rotation step is due: Update takes it.
		ResourceUpToDate:        plan.Action == ActionNone,
		ResourceLateInitialized: adopted,
		ConnectionDetails:       details,
	}, nil
}

// observeUncreated handles a key without an external name. A key with one
// of the derived names can only come from an earlier create of this very
// object whose response was lost: Coder returned its plaintext to nobody,
// so it can never be published. Create deletes it and makes a new one.
func (e *external) observeUncreated(k Resource, keys []ownKey) (managed.ExternalObservation, error) {
	if len(keys) > 0 && !policy.MayDelete(k) {
		// Policies that exclude Delete never delete a key in Coder, and a
		// key whose plaintext is lost can never be published: say so.
		return managed.ExternalObservation{}, errors.Errorf(errFmtLostKeyKept, keys[0].KeyPrefix)
	}
	e.discards = make([]Key, 0, len(keys))
	for _, c := range keys {
		e.discards = append(e.discards, Key{Counter: c.counter, ID: c.ID.String(), Prefix: c.KeyPrefix})
	}
	return managed.ExternalObservation{ResourceExists: false}, nil
}

// discard deletes keys whose plaintext nobody holds. Their cleanup records
// stay until the resource is deleted, or are reused by the next create of
// the same counter.
func (e *external) discard(ctx context.Context, k Resource, keys []Key) error {
	if err := e.deleteKeys(ctx, k, idsOf(keys)...); err != nil {
		return errors.Wrap(err, errReplaceKey)
	}
	for _, d := range keys {
		e.record.Event(k, event.Normal(ReasonUncertainCreateReplaced,
			"Deleted key "+d.Prefix+"... from an earlier create whose answer was lost (its plaintext is unknown); creating a new key"))
	}
	return nil
}

// Create deletes the keys Observe found whose plaintext nobody holds, so
// their names are free, then creates the key.
func (e *external) Create(ctx context.Context, k Resource) (managed.ExternalCreation, error) {
	if err := e.discard(ctx, k, e.discards); err != nil {
		return managed.ExternalCreation{}, err
	}
	resp, err := e.createKey(ctx, DerivedName(k))
	if err != nil {
		return managed.ExternalCreation{}, errors.Wrap(err, errCreateKey)
	}
	meta.SetExternalName(k, resp.ID.String())
	if v, ok := k.GetAnnotations()[RotateAnnotation]; ok {
		// A new key answers the rotate request already there; the
		// reconciler persists this with the external name.
		meta.AddAnnotations(k, map[string]string{RotatedAnnotation: v})
	}
	observe(k.KeyObservation(), codersdk.AIGatewayKey{ID: resp.ID, Name: resp.Name, KeyPrefix: resp.KeyPrefix, CreatedAt: resp.CreatedAt})
	return managed.ExternalCreation{ConnectionDetails: managed.ConnectionDetails{
		ConnectionKey:       []byte(resp.Key),
		ConnectionKeyPrefix: []byte(resp.KeyPrefix),
		ConnectionID:        []byte(resp.ID.String()),
		ConnectionName:      []byte(resp.Name),
		ConnectionURL:       []byte(e.url),
	}}, nil
}

// Update takes the rotation step Observe decided; a key has no other
// mutable fields in Coder.
func (e *external) Update(ctx context.Context, k Resource) (managed.ExternalUpdate, error) {
	if e.plan == nil {
		return managed.ExternalUpdate{}, nil
	}
	u, err := e.step(ctx, k, *e.plan)
	// The change log says which rotation step this update took.
	u.AdditionalDetails = managed.AdditionalDetails{ChangeLogRotationStep: string(e.plan.Action)}
	return u, err
}

// ChangeLogRotationStep is the change-log detail that names the rotation
// step an update of a key took (Action).
const ChangeLogRotationStep = "rotationStep"

// step takes rotation step p.
func (e *external) step(ctx context.Context, k Resource, p RotationPlan) (managed.ExternalUpdate, error) {
	switch p.Action {
	case ActionDiscard:
		return managed.ExternalUpdate{}, e.discard(ctx, k, p.Discard)
	case ActionStart:
		return e.start(ctx, k, p)
	case ActionCommit:
		return managed.ExternalUpdate{}, e.commit(ctx, k, p.Current.ID)
	case ActionRestart:
		return managed.ExternalUpdate{}, e.restart(ctx, k, p)
	case ActionRetire:
		return managed.ExternalUpdate{}, e.retire(ctx, k, p)
	case ActionRetireOldest:
		return managed.ExternalUpdate{}, e.retireOldest(ctx, k, p)
	case ActionFinish:
		return managed.ExternalUpdate{}, e.finish(ctx, k, p)
	case ActionNone:
	}
	return managed.ExternalUpdate{}, nil
}

func (e *external) Disconnect(context.Context) error { return nil }

func observe(o *common.AIGatewayKeyObservation, k codersdk.AIGatewayKey) {
	o.ID = k.ID.String()
	o.Name = k.Name
	o.KeyPrefix = k.KeyPrefix
	o.CreatedAt = timePtr(&k.CreatedAt)
	o.LastHeartbeatAt = timePtr(k.LastHeartbeatAt)
}

func timePtr(t *time.Time) *metav1.Time {
	if t == nil || t.IsZero() {
		return nil
	}
	mt := metav1.NewTime(t.UTC().Truncate(time.Second))
	return &mt
}
