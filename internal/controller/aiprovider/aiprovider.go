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

// Package aiprovider is the one external client for AIProviders, both
// scopes. The external name is the Coder provider id (an import may name the
// provider by its Coder name; it settles to the id); the Coder-wide name is
// forProvider.name (default metadata.name). API keys come from Secrets only:
// they go to Coder and into a keyed fingerprint in status (an HMAC with a
// key only the provider holds), never to status, events, logs or errors as
// they are.
package aiprovider

import (
	"context"
	"strings"
	"time"

	"github.com/coder/coder/v2/codersdk"
	"github.com/google/uuid"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
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

// ReasonAdoptedUncertainCreate is the event reason when a provider that an
// earlier create attempt wrote, although its response was lost, becomes this
// resource's external resource.
const ReasonAdoptedUncertainCreate event.Reason = "AdoptedUncertainCreate"

const (
	errGetProvider      = "cannot get AI provider"
	errCreateProvider   = "cannot create AI provider"
	errUpdateProvider   = "cannot update AI provider"
	errDeleteProvider   = "cannot delete AI provider"
	errExternalName     = "external name is not a Coder provider id"
	errInvalidSpec      = "invalid AIProvider spec"
	errAccessKeyPair    = "spec.forProvider.bedrock: set both accessKeyIDSecretRef and secretAccessKeySecretRef, or neither"
	errRecordAdoption   = "cannot record the adopted provider's id as the external name"
	errNotObserved      = "cannot update an AI provider that was not observed first"
	errCannotPutBack    = "cannot make the provider in Coder match the spec"
	errSetupKind        = "cannot set up AIProvider controller"
	errNoFingerprintKey = "cannot set up AIProvider controller: no fingerprint key"
	errFmtNameTaken     = "the name %q is taken in Coder by provider %s, created %s, which this resource did not create; it is not adopted: choose another spec.forProvider.name, or delete that provider in Coder"
	errFmtCannotDate    = "cannot tell whether provider %q (%s) in Coder is the result of this resource's create attempt"
	errFmtCreateTaken   = "cannot create AI provider: the name %q is taken in Coder by a provider this resource does not own; it is not adopted, and creating is retried with backoff"
	msgFmtAdopted       = "Adopted Coder provider %s: an earlier create attempt wrote it, although its response was lost"
	msgStatusNotStored  = "Cannot record the created provider's key ids and fingerprint; the keys will be sent again"
)

// A Resource is an AIProvider of either scope.
type Resource interface {
	resource.Managed
	ProviderFields() *common.AIProviderFields
	ProviderBedrock() *common.BedrockFields
	ProviderSecretRefs() common.AIProviderSecretRefs
	ProviderObservation() *common.AIProviderObservation
}

// Options configure the AIProvider controllers.
type Options struct {
	managedkind.Options
	// FingerprintKey keys the credentials fingerprint.
	FingerprintKey KeySource
}

// A KeySource hands out the key the credentials fingerprint is keyed with
// (fingerprintkey.Source).
type KeySource interface {
	Key(ctx context.Context) ([]byte, error)
}

// Setup adds a controller for the AIProvider kind gvk to the manager. A
// change to a Secret an AIProvider reads reconciles that AIProvider at once,
// so a rotated key reaches Coder without waiting for the next poll.
func Setup(ctx context.Context, mgr ctrl.Manager, gvk schema.GroupVersionKind, o Options) error {
	readers, err := readersOfSecret(mgr.GetClient(), mgr.GetScheme(), gvk)
	if err != nil {
		return errors.Wrap(err, errSetupKind)
	}
	if o.FingerprintKey == nil {
		return errors.New(errNoFingerprintKey)
	}
	c := &connection{kube: mgr.GetClient(), reader: activation.Reader(mgr.GetAPIReader()), records: o.Records, kind: gvk.Kind, fingerprintKey: o.FingerprintKey}
	return managedkind.Setup(mgr, gvk, o.Options, managedkind.Kind[Resource]{
		CoderName: ProviderName, External: c.external,
		Watches: func(b *builder.Builder) *builder.Builder { return b.Watches(secretObject(), readers) },
	})
}

// connection is what the external clients of one AIProvider kind share.
type connection struct {
	kube           client.Client
	reader         client.Reader
	records        *deletion.Store
	kind           string
	fingerprintKey KeySource
}

// external is the client of one AIProvider to Coder for one reconcile,
// through the session its ProviderConfig opened.
func (c *connection) external(s providerconfig.Session, log logging.Logger, record event.Recorder) deletion.Live[Resource] {
	return &external{
		coder: s.Client, url: s.URL, origin: managedkind.OriginOf(s), kube: c.kube, reader: c.reader, records: c.records,
		kind: c.kind, log: log, record: record, fingerprintKey: c.fingerprintKey,
	}
}

// external talks to Coder for one AIProvider during one reconcile.
type external struct {
	coder *coder.Client
	// url is Coder's URL as the ProviderConfig names it.
	url string
	// origin is the Coder the session reaches: only its records and
	// resources say who owns a provider there (records.Speaks).
	origin deletion.Origin
	kube   client.Client
	// reader reads the cleanup record past the cache.
	reader client.Reader
	// records decide who owns a provider imported by name.
	records *deletion.Store
	kind    string
	log     logging.Logger
	record  event.Recorder
	// fingerprintKey keys the credentials fingerprint.
	fingerprintKey KeySource

	// Observe leaves what it found for Update, which follows it in the same
	// reconcile: one GET and one read of the Secrets per reconcile.
	want  *Desired
	drift *Drift
}

func (e *external) Observe(ctx context.Context, p Resource) (managed.ExternalObservation, error) {
	id := meta.GetExternalName(p)
	if id == "" {
		return e.observeUncreated(ctx, p)
	}
	if _, err := uuid.Parse(id); err != nil {
		return e.observeByName(ctx, p, id)
	}
	got, err := e.coder.GetProvider(ctx, id)
	if coder.IsNotFound(err) {
		// Verified absence: Coder's own 404 for the id. A soft-deleted
		// provider is a 404 too.
		return managed.ExternalObservation{ResourceExists: false}, nil
	}
	if err != nil {
		return managed.ExternalObservation{}, errors.Wrap(err, errGetProvider)
	}
	return e.observeExisting(ctx, p, got)
}

func (e *external) observeExisting(ctx context.Context, p Resource, got codersdk.AIProvider) (managed.ExternalObservation, error) {
	observe(p.ProviderObservation(), got)
	p.SetConditions(xpv2.Available())
	details := ConnectionDetails(e.url, got)
	if !policy.Of(p).ShouldUpdate() {
		// Nothing will be changed, so neither the Secrets nor the drift
		// matter: an observe-only import reads no Secrets it does not use,
		// and needs no type or base URL in its spec.
		return managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true, ConnectionDetails: details}, nil
	}
	want, err := e.desired(ctx, p)
	if err != nil {
		return managed.ExternalObservation{}, err
	}
	applied, upgraded := UpgradeLegacy(AppliedOf(p.ProviderObservation()), want)
	if upgraded {
		// The reconciler writes the status after Observe: the unkeyed
		// fingerprint goes without the credentials being sent again.
		p.ProviderObservation().CredentialsFingerprint = want.Fingerprint
	}
	if a, ok := UpgradeKeys(applied, want, got); ok {
		// As above: which id holds which key, for a status without it.
		applied, p.ProviderObservation().AppliedAPIKeys = a, a.Keys
	}
	d := Diff(want, got, applied)
	e.want, e.drift = &want, &d
	return managed.ExternalObservation{
		ResourceExists:    true,
		ResourceUpToDate:  d.UpToDate(),
		Diff:              strings.Join(d.Fields, ", "),
		ConnectionDetails: details,
	}, nil
}

// desired reads r's Secrets and builds what Coder should hold.
func (e *external) desired(ctx context.Context, r Resource) (Desired, error) {
	c, err := ReadCredentials(ctx, e.kube, r.ProviderSecretRefs())
	if err != nil {
		return Desired{}, err
	}
	key, err := e.fingerprintKey.Key(ctx)
	if err != nil {
		return Desired{}, err
	}
	uid := string(r.GetUID())
	return Desired{
		Request:            CreateRequest(ProviderName(r), *r.ProviderFields(), r.ProviderBedrock(), c),
		Fingerprint:        Fingerprint(key, uid, c),
		APIKeyFingerprints: KeyFingerprints(key, uid, c.APIKeys),
		LegacyFingerprint:  LegacyFingerprint(uid, c),
		NameFromMetadata:   r.ProviderFields().Name == nil,
	}, nil
}

// confirm checks that a create's answer is the provider asked for: its name
// is the one sent, and a read of its id shows that name. An id a server
// answered with could be anyone's provider, which this resource would then
// patch and delete.
func (e *external) confirm(ctx context.Context, asked string, got codersdk.AIProvider) error {
	if got.Name == asked {
		read, err := e.coder.GetProvider(ctx, got.ID.String())
		if err == nil && read.Name == asked && read.ID == got.ID {
			return nil
		}
		if err != nil && !coder.IsNotFound(err) {
			// The read failed: the create's outcome is as unknown as after
			// a timeout, and the next Observe looks it up by name.
			return &coder.UnconfirmedError{Kind: "AI provider", Asked: asked, Got: got.Name + " (unread: " + string(coder.ClassOf(err)) + ")", ID: got.ID.String()}
		}
		got.Name = read.Name
		if err != nil {
			got.Name = asked + ", which a read of the id does not find"
		}
	}
	return &coder.UnconfirmedError{Kind: "AI provider", Asked: asked, Got: got.Name, ID: got.ID.String()}
}

func (e *external) Create(ctx context.Context, p Resource) (managed.ExternalCreation, error) {
	want, err := e.desired(ctx, p)
	if err != nil {
		return managed.ExternalCreation{}, err
	}
	// Coder's own rules, before anything is sent.
	if vs := want.Request.Validate(); len(vs) > 0 {
		return managed.ExternalCreation{}, InvalidSpec(vs, want.NameFromMetadata)
	}
	got, err := e.coder.CreateProvider(ctx, want.Request)
	if err == nil {
		err = e.confirm(ctx, want.Request.Name, got)
	}
	if err != nil {
		// Whether this attempt may have written the provider is the
		// record's to say, which the deletion wrapper around this Create
		// writes first: a timeout keeps the attempt there, for the next
		// Observe to look by name.
		if coder.IsConflict(err) {
			return managed.ExternalCreation{}, errors.Wrapf(err, errFmtCreateTaken, want.Request.Name)
		}
		return managed.ExternalCreation{}, errors.Wrap(err, errCreateProvider)
	}

	o := p.ProviderObservation()
	observe(o, got)
	recordKeys(o, want, CreatePlan(want), got.APIKeys)
	o.CredentialsFingerprint = want.Fingerprint
	// After Create the reconciler persists annotations only, and its update
	// (UpdateCriticalAnnotations) reads the object back, resetting the
	// status: write the applied key ids and fingerprint now, or the next
	// Observe would send the keys again for nothing.
	if err := e.kube.Status().Update(ctx, p); err != nil {
		e.log.Debug(msgStatusNotStored, "error", err)
	}
	// After the status update, which reads the object back.
	meta.SetExternalName(p, got.ID.String())
	return managed.ExternalCreation{ConnectionDetails: ConnectionDetails(e.url, got)}, nil
}

// Update sends the one PATCH that puts back what Observe found different.
func (e *external) Update(ctx context.Context, p Resource) (managed.ExternalUpdate, error) {
	if e.drift == nil || e.want == nil {
		return managed.ExternalUpdate{}, errors.New(errNotObserved)
	}
	d, err := e.guardSeeded(ctx, p, *e.drift)
	if err != nil {
		return managed.ExternalUpdate{}, err
	}
	if !d.Patch.IsEmpty() {
		if vs := e.want.Request.Validate(); len(vs) > 0 {
			return managed.ExternalUpdate{}, InvalidSpec(vs, e.want.NameFromMetadata)
		}
		if vs := d.Patch.Validate(); len(vs) > 0 {
			return managed.ExternalUpdate{}, InvalidSpec(vs, e.want.NameFromMetadata)
		}
		got, err := e.coder.UpdateProvider(ctx, meta.GetExternalName(p), d.Patch)
		if err != nil {
			return managed.ExternalUpdate{}, errors.Wrap(err, errUpdateProvider)
		}
		o := p.ProviderObservation()
		observe(o, got)
		if d.SendsAPIKeys {
			recordKeys(o, *e.want, d.Keys, got.APIKeys)
		}
		if d.SendsCredentials {
			o.CredentialsFingerprint = e.want.Fingerprint
		}
	}
	if len(d.Unfixable) > 0 {
		return managed.ExternalUpdate{}, errors.New(errCannotPutBack + ": " + strings.Join(d.Unfixable, "; "))
	}
	return managed.ExternalUpdate{}, nil
}

func (e *external) Disconnect(context.Context) error { return nil }

// observe records what Coder reports. Coder returns masked keys and no
// Bedrock credentials, so nothing secret reaches the status.
func observe(o *common.AIProviderObservation, p codersdk.AIProvider) {
	o.ID = p.ID.String()
	o.Name = p.Name
	o.Type = string(p.Type)
	o.DisplayName = p.DisplayName
	o.Icon = p.Icon
	o.Enabled = ptr.To(p.Enabled)
	o.BaseURL = p.BaseURL
	o.APIKeys = nil
	for _, k := range p.APIKeys {
		o.APIKeys = append(o.APIKeys, common.AIProviderKeyObservation{ID: k.ID.String(), Masked: k.Masked, CreatedAt: timePtr(k.CreatedAt)})
	}
	o.Bedrock = nil
	if b := p.Settings.Bedrock; b != nil {
		o.Bedrock = &common.AIProviderBedrockObservation{
			Region:         b.Region,
			Model:          b.Model,
			SmallFastModel: b.SmallFastModel,
			Protocol:       string(b.Protocol),
			RoleARN:        b.RoleARN,
			ExternalID:     b.ExternalID,
		}
	}
	o.CreatedAt = timePtr(p.CreatedAt)
	o.UpdatedAt = timePtr(p.UpdatedAt)
}

func timePtr(t time.Time) *metav1.Time {
	if t.IsZero() {
		return nil
	}
	mt := metav1.NewTime(t.UTC().Truncate(time.Second))
	return &mt
}
