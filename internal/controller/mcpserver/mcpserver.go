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

// Package mcpserver is the one external client for MCPServers, both
// scopes. The external name is the Coder id of the server (an import may
// name it by its slug; it settles to the id); the slug is
// forProvider.slug (default metadata.name). Secrets (the OAuth2 client
// secret, the API key value, custom header values) come from Secrets only:
// they go to Coder and into a keyed fingerprint in status, never to
// status, events, logs or errors as they are.
package mcpserver

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
	"github.com/crossplane-contrib/provider-coder/internal/index"
	"github.com/crossplane-contrib/provider-coder/internal/policy"
	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
)

const (
	errGetServer        = "cannot get MCP server"
	errCreateServer     = "cannot create MCP server"
	errUpdateServer     = "cannot update MCP server"
	errDeleteServer     = "cannot delete MCP server"
	errExternalName     = "external name is not a Coder MCP server id"
	errNotObserved      = "cannot update an MCP server that was not observed first"
	errSetupKind        = "cannot set up MCPServer controller"
	errNoFingerprintKey = "cannot set up MCPServer controller: no fingerprint key"
	errFmtCreateTaken   = "cannot create MCP server: the slug %q is taken in Coder by a server this resource does not own; it is not adopted: choose another spec.forProvider.slug, delete that server in Coder, or import it (external name set to its slug)"
	msgStatusNotStored  = "Cannot record the created MCP server's fingerprint; the secrets will be sent again"
)

// A Resource is an MCPServer of either scope.
type Resource interface {
	resource.Managed
	MCPServerFields() *common.MCPServerFields
	MCPServerOAuth2() *common.MCPServerOAuth2Fields
	MCPServerAPIKeyHeader() string
	MCPServerSecretRefs() common.MCPServerSecretRefs
	MCPServerObservation() *common.MCPServerObservation
}

// A KeySource hands out the key the credentials fingerprint is keyed with
// (fingerprintkey.Source).
type KeySource interface {
	Key(ctx context.Context) ([]byte, error)
}

// Options configure the MCPServer controllers.
type Options struct {
	managedkind.Options
	// FingerprintKey keys the credentials fingerprint.
	FingerprintKey KeySource
}

// Setup adds a controller for the MCPServer kind gvk to the manager. A
// change to a Secret an MCPServer reads reconciles that MCPServer at once,
// so a rotated secret reaches Coder without waiting for the next poll.
func Setup(mgr ctrl.Manager, gvk schema.GroupVersionKind, o Options) error {
	readers, err := managedkind.ReadersOfSecret(mgr.GetClient(), mgr.GetScheme(), gvk, index.MCPServerSecrets)
	if err != nil {
		return errors.Wrap(err, errSetupKind)
	}
	if o.FingerprintKey == nil {
		return errors.New(errNoFingerprintKey)
	}
	c := &connection{kube: mgr.GetClient(), reader: activation.Reader(mgr.GetAPIReader()), records: o.Records, kind: gvk.Kind, fingerprintKey: o.FingerprintKey}
	return managedkind.Setup(mgr, gvk, o.Options, managedkind.Kind[Resource]{
		CoderName: Slug, External: c.external,
		Watches: func(b *builder.Builder) *builder.Builder { return b.Watches(managedkind.SecretObject(), readers) },
	})
}

// connection is what the external clients of one MCPServer kind share.
type connection struct {
	kube           client.Client
	reader         client.Reader
	records        *deletion.Store
	kind           string
	fingerprintKey KeySource
}

func (c *connection) external(s providerconfig.Session, log logging.Logger, record event.Recorder) deletion.Live[Resource] {
	return &external{
		coder: s.Client, origin: managedkind.OriginOf(s), kube: c.kube, reader: c.reader, records: c.records,
		kind: c.kind, log: log, record: record, fingerprintKey: c.fingerprintKey,
	}
}

// external talks to Coder for one MCPServer during one reconcile.
type external struct {
	coder *coder.Client
	// origin is the Coder the session reaches: only its records and
	// resources say who owns a server there.
	origin deletion.Origin
	kube   client.Client
	// reader reads the cleanup record past the cache.
	reader  client.Reader
	records *deletion.Store
	kind    string
	log     logging.Logger
	record  event.Recorder
	// fingerprintKey keys the credentials fingerprint.
	fingerprintKey KeySource

	// Observe leaves what it found for Update, which follows it in the
	// same reconcile: one GET and one read of the Secrets per reconcile.
	want  *Desired
	drift *Drift
}

// Slug is the Coder-wide slug of r's server: forProvider.slug, or
// metadata.name when that is unset.
func Slug(r Resource) string {
	if s := r.MCPServerFields().Slug; s != nil && *s != "" {
		return *s
	}
	return r.GetName()
}

func (e *external) Observe(ctx context.Context, r Resource) (managed.ExternalObservation, error) {
	name := meta.GetExternalName(r)
	if name == "" {
		return e.observeUncreated(ctx, r)
	}
	id, err := uuid.Parse(name)
	if err != nil {
		return e.observeBySlug(ctx, r, name)
	}
	got, err := e.coder.GetMCPServer(ctx, id)
	if coder.IsNotFound(err) {
		// Verified absence: Coder's own 404 for the id (it deletes rows).
		return managed.ExternalObservation{ResourceExists: false}, nil
	}
	if err != nil {
		return managed.ExternalObservation{}, errors.Wrap(err, errGetServer)
	}
	return e.observeExisting(ctx, r, got)
}

func (e *external) observeExisting(ctx context.Context, r Resource, got codersdk.MCPServerConfig) (managed.ExternalObservation, error) {
	o := r.MCPServerObservation()
	observe(o, got)
	r.SetConditions(xpv2.Available())
	if !policy.Of(r).ShouldUpdate() {
		// Nothing will be changed, so neither the Secrets nor the drift
		// matter: an observe-only import reads no Secret.
		return managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}, nil
	}
	want, err := e.desired(ctx, r)
	if err != nil {
		return managed.ExternalObservation{}, err
	}
	d := Diff(want, got, o.CredentialsFingerprint)
	e.want, e.drift = &want, &d
	return managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: d.UpToDate(), Diff: strings.Join(d.Fields, ", ")}, nil
}

// desired reads r's Secrets and builds what Coder should hold.
func (e *external) desired(ctx context.Context, r Resource) (Desired, error) {
	c, err := ReadCredentials(ctx, e.kube, r.MCPServerSecretRefs())
	if err != nil {
		return Desired{}, err
	}
	key, err := e.fingerprintKey.Key(ctx)
	if err != nil {
		return Desired{}, err
	}
	req := CreateRequest(Slug(r), Spec{Fields: *r.MCPServerFields(), OAuth2: r.MCPServerOAuth2(), APIKeyHeader: r.MCPServerAPIKeyHeader()}, c)
	return Desired{Request: req, Fingerprint: Fingerprint(key, string(r.GetUID()), req.AuthType, c)}, nil
}

// confirm checks that a create's answer is the server asked for: its slug
// is the one sent, and a read of its id shows that slug. An id a server
// answered with could be anyone's, which this resource would then patch
// and delete.
func (e *external) confirm(ctx context.Context, asked string, got codersdk.MCPServerConfig) error {
	if got.Slug == asked {
		read, err := e.coder.GetMCPServer(ctx, got.ID)
		if err == nil && read.Slug == asked && read.ID == got.ID {
			return nil
		}
		if err != nil && !coder.IsNotFound(err) {
			return &coder.UnconfirmedError{Kind: "MCP server", Asked: asked, Got: got.Slug + " (unread: " + string(coder.ClassOf(err)) + ")", ID: got.ID.String()}
		}
		got.Slug = read.Slug
		if err != nil {
			got.Slug = asked + ", which a read of the id does not find"
		}
	}
	return &coder.UnconfirmedError{Kind: "MCP server", Asked: asked, Got: got.Slug, ID: got.ID.String()}
}

func (e *external) Create(ctx context.Context, r Resource) (managed.ExternalCreation, error) {
	want, err := e.desired(ctx, r)
	if err != nil {
		return managed.ExternalCreation{}, err
	}
	got, err := e.coder.CreateMCPServer(ctx, want.Request)
	if err == nil {
		err = e.confirm(ctx, want.Request.Slug, got)
	}
	if err != nil {
		// Whether this attempt may have written the server is the
		// record's to say, which the deletion wrapper around this Create
		// writes first: a timeout keeps the attempt there, for the next
		// Observe to look by slug.
		if coder.IsConflict(err) {
			err = errors.Errorf(errFmtCreateTaken, want.Request.Slug)
			r.SetConditions(xpv2.Unavailable().WithMessage(err.Error()))
			return managed.ExternalCreation{}, err
		}
		return managed.ExternalCreation{}, errors.Wrap(err, errCreateServer)
	}
	o := r.MCPServerObservation()
	observe(o, got)
	o.CredentialsFingerprint = want.Fingerprint
	// After Create the reconciler persists annotations only, and its
	// update reads the object back, resetting the status: write the
	// fingerprint now, or the next Observe would send the secrets again.
	if err := e.kube.Status().Update(ctx, r); err != nil {
		e.log.Debug(msgStatusNotStored, "error", err)
	}
	meta.SetExternalName(r, got.ID.String())
	return managed.ExternalCreation{}, nil
}

// Update sends the one PATCH that puts back what Observe found different.
func (e *external) Update(ctx context.Context, r Resource) (managed.ExternalUpdate, error) {
	if e.drift == nil || e.want == nil {
		return managed.ExternalUpdate{}, errors.New(errNotObserved)
	}
	if e.drift.UpToDate() {
		return managed.ExternalUpdate{}, nil
	}
	id, err := uuid.Parse(meta.GetExternalName(r))
	if err != nil {
		return managed.ExternalUpdate{}, errors.New(errExternalName)
	}
	got, err := e.coder.UpdateMCPServer(ctx, id, e.drift.Patch)
	if err != nil {
		return managed.ExternalUpdate{}, errors.Wrap(err, errUpdateServer)
	}
	o := r.MCPServerObservation()
	observe(o, got)
	if e.drift.SendsCredentials {
		o.CredentialsFingerprint = e.want.Fingerprint
	}
	return managed.ExternalUpdate{}, nil
}

func (e *external) Disconnect(context.Context) error { return nil }

// observe records what Coder reports. Coder returns no secret, only
// whether it holds one, so nothing secret reaches the status.
func observe(o *common.MCPServerObservation, s codersdk.MCPServerConfig) {
	fp := o.CredentialsFingerprint
	*o = common.MCPServerObservation{
		ID: s.ID.String(), Slug: s.Slug, DisplayName: s.DisplayName, Description: s.Description, IconURL: s.IconURL,
		Transport: s.Transport, URL: s.URL, AuthType: s.AuthType,
		OAuth2ClientID: s.OAuth2ClientID, OAuth2AuthURL: s.OAuth2AuthURL, OAuth2TokenURL: s.OAuth2TokenURL,
		OAuth2RevocationURL: s.OAuth2RevocationURL, OAuth2Scopes: s.OAuth2Scopes, HasOAuth2Secret: s.HasOAuth2Secret,
		APIKeyHeader: s.APIKeyHeader, HasAPIKey: s.HasAPIKey, HasCustomHeaders: s.HasCustomHeaders,
		ToolAllowList: s.ToolAllowList, ToolDenyList: s.ToolDenyList, Availability: s.Availability,
		Enabled: ptr.To(s.Enabled), ModelIntent: s.ModelIntent, AllowInPlanMode: s.AllowInPlanMode,
		ForwardCoderHeaders: s.ForwardCoderHeaders, CreatedAt: timePtr(s.CreatedAt), UpdatedAt: timePtr(s.UpdatedAt),
		CredentialsFingerprint: fp,
	}
}

func timePtr(t time.Time) *metav1.Time {
	if t.IsZero() {
		return nil
	}
	mt := metav1.NewTime(t.UTC().Truncate(time.Second))
	return &mt
}
