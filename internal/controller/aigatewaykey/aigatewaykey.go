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
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
	"github.com/crossplane-contrib/provider-coder/internal/controller/managedkind"
	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
)

// Connection detail keys written to writeConnectionSecretToRef.
const (
	ConnectionKey       = "key"
	ConnectionKeyPrefix = "keyPrefix"
	ConnectionID        = "id"
	ConnectionName      = "name"
	ConnectionURL       = "url"
)

// ReasonUncertainCreateReplaced is the event reason when a key created by an
// earlier attempt whose response was lost is deleted so it can be created
// again: its plaintext is unknown, so it can never be published.
const ReasonUncertainCreateReplaced event.Reason = "UncertainCreateReplaced"

const (
	errNotKey       = "managed resource is not an AIGatewayKey"
	errListKeys     = "cannot list AI Gateway keys"
	errCreateKey    = "cannot create AI Gateway key"
	errDeleteKey    = "cannot delete AI Gateway key"
	errReplaceKey   = "cannot delete the AI Gateway key left by an uncertain create"
	errExternalName = "external name is not a Coder key id"
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

// Options configure the AIGatewayKey controllers.
type Options struct {
	managedkind.Options
	// Keys shares one key list per ProviderConfig among every key polling at
	// about the same time.
	Keys *coder.KeyLister
}

// Setup adds a controller for the AIGatewayKey kind gvk to the manager.
func Setup(mgr ctrl.Manager, gvk schema.GroupVersionKind, o Options) error {
	return managedkind.Setup(mgr, gvk, o.Options, func(k managedkind.Kit) managed.ExternalConnector {
		return &managedkind.Connector{
			Options: o.Options, Kind: k.Kind, NotKind: errNotKey,
			Is:        func(mg resource.Managed) bool { _, ok := mg.(Resource); return ok },
			CoderName: func(mg resource.Managed) string { return DerivedName(mg.(Resource)) },
			External: func(s providerconfig.Session) managed.ExternalClient {
				return &external{coder: s.Client, scope: s.Scope, url: s.URL, keys: o.Keys, record: k.Record}
			},
		}
	}, nil)
}

// external talks to Coder for one key, through one ProviderConfig.
type external struct {
	coder  *coder.Client
	keys   *coder.KeyLister
	record event.Recorder
	// scope identifies the ProviderConfig and URL whose key list is shared.
	scope string
	url   string
}

func (e *external) Observe(ctx context.Context, mg resource.Managed) (managed.ExternalObservation, error) {
	k := mg.(Resource)
	keys, err := e.keys.List(ctx, e.scope, e.coder)
	if err != nil {
		return managed.ExternalObservation{}, errors.Wrap(err, errListKeys)
	}

	id := meta.GetExternalName(mg)
	if id == "" {
		return e.observeUncreated(ctx, k, keys)
	}
	if _, err := uuid.Parse(id); err != nil {
		return managed.ExternalObservation{}, errors.New(errExternalName)
	}
	found, ok := byID(keys, id)
	if !ok {
		// Verified absence: a successful list without the id.
		return managed.ExternalObservation{ResourceExists: false}, nil
	}
	observe(k.KeyObservation(), found)
	mg.SetConditions(xpv2.Available())
	return managed.ExternalObservation{
		ResourceExists:   true,
		ResourceUpToDate: true,
		// The plaintext is not among them: Coder returned it once, at
		// create, and the publisher keeps keys it is not given.
		ConnectionDetails: managed.ConnectionDetails{
			ConnectionKeyPrefix: []byte(found.KeyPrefix),
			ConnectionID:        []byte(found.ID.String()),
			ConnectionName:      []byte(found.Name),
			ConnectionURL:       []byte(e.url),
		},
	}, nil
}

// observeUncreated handles a key without an external name. A key with the
// derived name can only come from an earlier create of this very object
// whose response was lost: Coder returned its plaintext to nobody, so it
// can never be published. Delete it and let Create make a new one.
func (e *external) observeUncreated(ctx context.Context, k Resource, keys []codersdk.AIGatewayKey) (managed.ExternalObservation, error) {
	found, ok := byName(keys, DerivedName(k))
	if !ok {
		return managed.ExternalObservation{ResourceExists: false}, nil
	}
	if meta.WasDeleted(k) {
		// Deleting: the key must go either way, so report it and let the
		// reconciler's delete path remove it.
		meta.SetExternalName(k, found.ID.String())
		return managed.ExternalObservation{ResourceExists: true}, nil
	}
	err := e.coder.DeleteKey(ctx, found.ID)
	e.keys.Invalidate(e.scope)
	if err != nil && !coder.IsNotFound(err) {
		return managed.ExternalObservation{}, errors.Wrap(err, errReplaceKey)
	}
	e.record.Event(k, event.Normal(ReasonUncertainCreateReplaced,
		"Deleted key "+found.KeyPrefix+"... from an earlier create whose answer was lost (its plaintext is unknown); creating a new key"))
	return managed.ExternalObservation{ResourceExists: false}, nil
}

func (e *external) Create(ctx context.Context, mg resource.Managed) (managed.ExternalCreation, error) {
	k := mg.(Resource)
	resp, err := e.coder.CreateKey(ctx, DerivedName(k))
	// Whatever the outcome, the next Observe must see Coder as it is now.
	e.keys.Invalidate(e.scope)
	if err != nil {
		return managed.ExternalCreation{}, errors.Wrap(err, errCreateKey)
	}
	meta.SetExternalName(mg, resp.ID.String())
	observe(k.KeyObservation(), codersdk.AIGatewayKey{ID: resp.ID, Name: resp.Name, KeyPrefix: resp.KeyPrefix, CreatedAt: resp.CreatedAt})
	return managed.ExternalCreation{ConnectionDetails: managed.ConnectionDetails{
		ConnectionKey:       []byte(resp.Key),
		ConnectionKeyPrefix: []byte(resp.KeyPrefix),
		ConnectionID:        []byte(resp.ID.String()),
		ConnectionName:      []byte(resp.Name),
		ConnectionURL:       []byte(e.url),
	}}, nil
}

// Update has nothing to do: a key has no mutable fields in Coder.
func (e *external) Update(context.Context, resource.Managed) (managed.ExternalUpdate, error) {
	return managed.ExternalUpdate{}, nil
}

// Delete asks Coder to delete the key. The reconciler then observes again
// and releases the finalizer only when a fresh list no longer has the key.
func (e *external) Delete(ctx context.Context, mg resource.Managed) (managed.ExternalDelete, error) {
	mg.SetConditions(xpv2.Deleting())
	id, err := uuid.Parse(meta.GetExternalName(mg))
	if err != nil {
		return managed.ExternalDelete{}, errors.New(errExternalName)
	}
	err = e.coder.DeleteKey(ctx, id)
	e.keys.Invalidate(e.scope)
	if err != nil && !coder.IsNotFound(err) {
		return managed.ExternalDelete{}, errors.Wrap(err, errDeleteKey)
	}
	return managed.ExternalDelete{}, nil
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

func byID(keys []codersdk.AIGatewayKey, id string) (codersdk.AIGatewayKey, bool) {
	for _, k := range keys {
		if k.ID.String() == id {
			return k, true
		}
	}
	return codersdk.AIGatewayKey{}, false
}

func byName(keys []codersdk.AIGatewayKey, name string) (codersdk.AIGatewayKey, bool) {
	for _, k := range keys {
		// Coder compares key names case-insensitively; derived names are
		// lower case already.
		if k.Name == name {
			return k, true
		}
	}
	return codersdk.AIGatewayKey{}, false
}
