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

package argocd

import (
	"errors"
	"sort"
	"strings"
	"time"

	"github.com/coder/coder/v2/codersdk"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/crossplane-contrib/provider-coder/apis"
	clusteraiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/ai/v1alpha1"
	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	namespacedaiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	namespacedv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/v1alpha1"
	coder "github.com/crossplane-contrib/provider-coder/internal/clients/coder"
	"github.com/crossplane-contrib/provider-coder/internal/controller/aigatewaykey"
	"github.com/crossplane-contrib/provider-coder/internal/controller/config"
	"github.com/crossplane-contrib/provider-coder/internal/deletion"
	"github.com/crossplane-contrib/provider-coder/internal/policy"
	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
)

// The samples are built from the API types and the provider's own
// constants and decisions, so a renamed field or reason changes them; the
// YAML in testdata is their written form, one file per kind, one document
// per state, named after the state.

var (
	created = metav1.Date(2026, 11, 29, 13, 0, 0, 0, time.UTC)
	deleted = metav1.Date(2026, 11, 29, 13, 5, 19, 0, time.UTC)
)

// generation is metadata.generation of every sample.
const generation = 3

// health is what Argo CD shows for an object: the status and message its
// health script returns.
type health struct {
	Status  string `json:"status"`
	Message string `json:"message"`
}

// A state is one situation of an object, and the health Argo CD must show
// for it. bare: the object has no status at all, as right after its
// creation.
type (
	managedState struct {
		set  func(resource.Managed)
		bare bool
		want health
		// keys: a state only AI Gateway keys are in.
		keys bool
		// only, if set: the kinds the state is of.
		only func(resource.Managed) bool
	}
	configState struct {
		set  func(providerconfig.Object, configKind)
		bare bool
		want health
	}
	recordState struct {
		set  func(*clusterv1alpha1.CleanupRecord)
		want health
	}
)

func at(c xpv2.Condition) xpv2.Condition {
	c.LastTransitionTime = created
	return c
}

func synced() xpv2.Condition {
	return at(xpv2.ReconcileSuccess().WithObservedGeneration(generation))
}

func syncError(msg string) xpv2.Condition {
	return at(xpv2.ReconcileError(errors.New(msg)).WithObservedGeneration(generation))
}

func beingDeleted(o metav1.Object, finalizer string) {
	o.SetDeletionTimestamp(&deleted)
	o.SetFinalizers([]string{finalizer})
}

// managedStates are the states of every managed resource kind.
var managedStates = map[string]managedState{
	"ready": {
		set:  func(mg resource.Managed) { mg.SetConditions(at(xpv2.Available()), synced()) },
		want: health{"Healthy", "Available in Coder"},
	},
	"creating": {
		set:  func(mg resource.Managed) { mg.SetConditions(at(xpv2.Creating()), synced()) },
		want: health{"Progressing", "Creating"},
	},
	"unavailable": {
		set: func(mg resource.Managed) {
			mg.SetConditions(at(xpv2.Unavailable().WithMessage("the key was deleted in Coder")), synced())
		},
		want: health{"Progressing", "Unavailable: the key was deleted in Coder"},
	},
	"synced-false": {
		set: func(mg resource.Managed) {
			mg.SetConditions(at(xpv2.Creating()), syncError("create failed: refusing to create in Coder: the ProviderConfig is being deleted"))
		},
		want: health{"Degraded", "create failed: refusing to create in Coder: the ProviderConfig is being deleted"},
	},
	"paused": {
		set: func(mg resource.Managed) {
			mg.SetAnnotations(map[string]string{"crossplane.io/paused": "true"})
			mg.SetConditions(at(xpv2.Available()), at(xpv2.ReconcilePaused().WithObservedGeneration(generation)))
		},
		want: health{"Suspended", "Reconciliation is paused (crossplane.io/paused or empty managementPolicies)"},
	},
	// The UpToDate condition Crossplane defines: the scripts do not read
	// it (Synced carries a failed update), so it never changes the health.
	"up-to-date-restricted": upToDate(xpv2.ReasonUpdateRestricted),
	"up-to-date-matched":    upToDate(xpv2.ReasonObserveMatched),
	"up-to-date-failed":     upToDate(xpv2.ReasonUpdateFailed),
	"up-to-date-requested":  upToDate(xpv2.ReasonUpdateRequested),
	"stale": {
		// Argo CD has just applied generation 3; the conditions are of 2.
		set: func(mg resource.Managed) {
			mg.SetConditions(at(xpv2.Available()), at(xpv2.ReconcileSuccess().WithObservedGeneration(generation-1)))
		},
		want: health{"Progressing", "Waiting for the provider to reconcile generation 3"},
	},
	"deleting": {
		set: func(mg resource.Managed) {
			beingDeleted(mg, providerconfig.ManagedFinalizer)
			mg.SetConditions(at(xpv2.Deleting()), synced())
		},
		want: health{"Progressing", "Deleting"},
	},
	"deleting-retrying": {
		set: func(mg resource.Managed) {
			beingDeleted(mg, providerconfig.ManagedFinalizer)
			mg.SetConditions(at(xpv2.Deleting()), syncError("delete failed: Coder is unavailable: 503 Service Unavailable"))
		},
		want: health{"Progressing", "Deleting, retrying: delete failed: Coder is unavailable: 503 Service Unavailable"},
	},
	"no-status": {
		set:  func(resource.Managed) {},
		bare: true,
		want: health{"Progressing", "Waiting for the provider to reconcile"},
	},
	// A rotation keeps the retiring key past its settle window while it
	// heartbeats: the resource is healthy, and its condition and events
	// say what to do; the scripts do not read it.
	"retiring-key-in-use":     retiring(corev1.ConditionTrue, aigatewaykey.ReasonHeartbeating),
	"retiring-key-not-in-use": retiring(corev1.ConditionFalse, aigatewaykey.ReasonNotInUse),
}

// retiring is a key in a rotation whose retiring key is, or is no longer,
// in use.
func retiring(status corev1.ConditionStatus, reason xpv2.ConditionReason) managedState {
	return managedState{
		set: func(mg resource.Managed) {
			mg.SetConditions(at(xpv2.Available()), synced(), at(xpv2.Condition{Type: aigatewaykey.TypeRetiringKeyInUse, Status: status, Reason: reason}))
		},
		want: health{"Healthy", "Available in Coder"},
		keys: true,
	}
}

func upToDate(reason xpv2.ConditionReason) managedState {
	return managedState{
		set: func(mg resource.Managed) {
			mg.SetConditions(at(xpv2.Available()), synced(), at(xpv2.Condition{Type: xpv2.TypeUpToDate, Status: corev1.ConditionFalse, Reason: reason}))
		},
		want: health{"Healthy", "Available in Coder"},
	}
}

// A configKind is one ProviderConfig kind with the dependents its samples
// hold for, as the hold lists them.
type configKind struct {
	gk         schema.GroupKind
	dependents []providerconfig.Dependent
	listed     string
}

var configKinds = []configKind{
	{
		gk: providerconfig.NamespacedKind,
		dependents: []providerconfig.Dependent{
			{Kind: "AIGatewayKey", Namespace: "team-a", Name: "gateway", Deleting: true},
			{Kind: "AIProvider", Namespace: "team-a", Name: "openai", Deleting: true},
		},
		listed: "AIGatewayKey/team-a/gateway, AIProvider/team-a/openai",
	},
	{
		gk: providerconfig.ClusterKind,
		dependents: []providerconfig.Dependent{
			{Kind: "AIGatewayKey", Namespace: "team-a", Name: "gateway", Deleting: true},
			{Kind: "AIProvider", Namespace: "team-b", Name: "openai", Deleting: true},
		},
		listed: "AIGatewayKey/team-a/gateway, AIProvider/team-b/openai",
	},
	{
		gk: providerconfig.LegacyKind,
		dependents: []providerconfig.Dependent{
			{Kind: "AIGatewayKey", Name: "shared-gateway", Deleting: true},
			{Kind: "AIProvider", Name: "openai", Deleting: true},
		},
		listed: "AIGatewayKey/shared-gateway, AIProvider/openai",
	},
}

// holding writes the hold the provider writes for a ProviderConfig being
// deleted, from the hold's own decision at now.
func holding(pc providerconfig.Object, deps []providerconfig.Dependent, now time.Time) {
	beingDeleted(pc, providerconfig.HoldFinalizer)
	d := providerconfig.Decide(providerconfig.Input{Now: now, DeletedAt: deleted.Time, Dependents: deps, Bounds: providerconfig.DefaultBounds()})
	if d.Phase == providerconfig.PhaseReleased {
		panic("sample hold is released: " + d.Why)
	}
	listed := providerconfig.List(d.Waiting)
	h := &common.HoldStatus{
		Phase:      string(d.Phase),
		Since:      &deleted,
		Until:      &metav1.Time{Time: d.Until},
		Dependents: listed,
		Remaining:  len(d.Waiting),
	}
	if d.Phase == providerconfig.PhaseGrace {
		h.GraceUntil = h.Until
	}
	st := providerconfig.StatusOf(pc)
	st.Hold = h
	c := xpv2.Unavailable().WithMessage(config.WaitingMessage + " (" + h.Phase + " until " + h.Until.UTC().Format(time.RFC3339) + "): " + strings.Join(listed, ", "))
	c.Reason = xpv2.ConditionReason(d.Why)
	pc.SetConditions(at(c))
}

// connected writes what the provider writes for a ProviderConfig whose
// Coder answered: Ready, a licence that grants AI Gateway, https.
func connected(pc providerconfig.Object, users int64) {
	st := providerconfig.StatusOf(pc)
	st.DeploymentID, st.Version = "0b0c2f51-8c1a-4d8e-9f0e-5a6b7c8d9e0f", "v2.36.0"
	pc.SetUsers(users)
	c := xpv2.Available()
	c.Reason = providerconfig.ReasonConnected
	pc.SetConditions(at(c), at(aiGateway(true, codersdk.EntitlementEntitled)), at(transport(corev1.ConditionFalse, config.ReasonTLS, "")))
}

func aiGateway(enabled bool, e codersdk.Entitlement) xpv2.Condition {
	return providerconfig.AIGatewayCondition(codersdk.Feature{Enabled: enabled, Entitlement: e})
}

const (
	msgTokenValid   = "the session token expires at 2027-03-01T00:00:00Z by Coder's clock"
	msgTokenSoon    = "the session token expires at 2026-12-05T00:00:00Z, in 3d by Coder's clock: create a new token"
	msgTokenExpired = "the session token expired at 2026-12-01T00:00:00Z by Coder's clock: create a new token"
)

func tokenCond(status corev1.ConditionStatus, reason xpv2.ConditionReason, msg string) xpv2.Condition {
	return xpv2.Condition{Type: providerconfig.TypeToken, Status: status, Reason: reason, Message: msg}
}

func transport(status corev1.ConditionStatus, reason xpv2.ConditionReason, msg string) xpv2.Condition {
	return xpv2.Condition{Type: config.TypeInsecureTransport, Status: status, Reason: reason, Message: msg}
}

// connectedWith is connected, then cs as the provider writes them.
func connectedWith(cs ...xpv2.Condition) func(providerconfig.Object, configKind) {
	return func(pc providerconfig.Object, _ configKind) {
		connected(pc, 2)
		for _, c := range cs {
			pc.SetConditions(at(c))
		}
	}
}

// released is a ProviderConfig the hold has let go for why: its finalizer
// is being removed, so only another finalizer would let Argo CD see it.
func released(why string) configState {
	return configState{
		set: func(pc providerconfig.Object, _ configKind) {
			connected(pc, 0)
			beingDeleted(pc, providerconfig.HoldFinalizer)
			c := xpv2.Unavailable()
			c.Reason = xpv2.ConditionReason(why)
			pc.SetConditions(at(c))
		},
		want: health{"Progressing", "Deleting"},
	}
}

const msgPlaintextHTTP = "spec.url is http://: the Coder session token and the AI Gateway keys Coder returns travel in clear text; use https://"

func notReady(reason xpv2.ConditionReason, msg string) func(providerconfig.Object, configKind) {
	return func(pc providerconfig.Object, _ configKind) {
		c := xpv2.Unavailable().WithMessage(msg)
		c.Reason = reason
		pc.SetConditions(at(c))
	}
}

// configStates are the states of every ProviderConfig kind; a want message
// names the kind's dependents as {dependents}, the first one as {first}.
var configStates = map[string]configState{
	"ready": {
		set:  func(pc providerconfig.Object, _ configKind) { connected(pc, 2) },
		want: health{"Healthy", "Connected to Coder v2.36.0; used by 2 managed resources"},
	},
	"ready-one-user": {
		set:  func(pc providerconfig.Object, _ configKind) { connected(pc, 1) },
		want: health{"Healthy", "Connected to Coder v2.36.0; used by 1 managed resource"},
	},
	"unauthorized": {
		set:  notReady(providerconfig.ReasonUnauthorized, "Coder rejected the session token: 401 Unauthorized"),
		want: health{"Degraded", "Unauthorized: Coder rejected the session token: 401 Unauthorized"},
	},
	"credentials-unavailable": {
		set:  notReady(providerconfig.ReasonCredentialsUnavailable, "cannot get credentials Secret team-a/coder-token: secrets \"coder-token\" not found"),
		want: health{"Degraded", "CredentialsUnavailable: cannot get credentials Secret team-a/coder-token: secrets \"coder-token\" not found"},
	},
	"missing-permissions": {
		set:  notReady(providerconfig.ReasonMissingPermissions, config.MissingPermissionsMessage(config.Needed[:1])),
		want: health{"Degraded", "MissingPermissions: " + config.MissingPermissionsMessage(config.Needed[:1])},
	},
	"unlicensed": {
		set:  connectedWith(aiGateway(false, codersdk.EntitlementNotEntitled)),
		want: health{"Degraded", "Connected to Coder v2.36.0; used by 2 managed resources; AI Gateway NotEntitled: " + aiGateway(false, codersdk.EntitlementNotEntitled).Message},
	},
	"ai-gateway-not-enabled": {
		set:  connectedWith(aiGateway(false, codersdk.EntitlementEntitled)),
		want: health{"Degraded", "Connected to Coder v2.36.0; used by 2 managed resources; AI Gateway NotEnabled: " + aiGateway(false, codersdk.EntitlementEntitled).Message},
	},
	"entitlements-unknown": {
		// Retried each poll; a key Coder then refuses is Degraded itself.
		set:  connectedWith(providerconfig.AIGatewayUnknown(errors.New("cannot get entitlements: 503 Service Unavailable"))),
		want: health{"Healthy", "Connected to Coder v2.36.0; used by 2 managed resources"},
	},
	"plaintext-http": {
		set:  connectedWith(transport(corev1.ConditionTrue, config.ReasonPlaintextHTTP, msgPlaintextHTTP)),
		want: health{"Healthy", "Connected to Coder v2.36.0; used by 2 managed resources; warning: PlaintextHTTP: " + msgPlaintextHTTP},
	},
	// The session token's lifetime: a warning before it lapses, nothing
	// while it is far off or Coder extends it; once Coder refuses it, Ready
	// turns False (Unauthorized).
	"token-valid": {
		set:  connectedWith(tokenCond(corev1.ConditionTrue, providerconfig.ReasonTokenValid, msgTokenValid)),
		want: health{"Healthy", "Connected to Coder v2.36.0; used by 2 managed resources"},
	},
	"token-refreshed": {
		set:  connectedWith(tokenCond(corev1.ConditionTrue, providerconfig.ReasonTokenRefreshed, "the session token is a login session")),
		want: health{"Healthy", "Connected to Coder v2.36.0; used by 2 managed resources"},
	},
	"token-expiry-unknown": {
		set:  connectedWith(tokenCond(corev1.ConditionUnknown, providerconfig.ReasonTokenExpiryUnknown, "cannot read when the session token expires")),
		want: health{"Healthy", "Connected to Coder v2.36.0; used by 2 managed resources"},
	},
	// A least-privilege token: the kinds it may not manage are a warning.
	"coder-permissions-missing": {
		set:  connectedWith(providerconfig.CoderPermissionsCondition(map[string]bool{"group:read": true, "group:update": true, "user:read": true, "user:update": true})),
		want: health{"Healthy", "Connected to Coder v2.36.0; used by 2 managed resources; warning: MissingCoderPermissions: " + providerconfig.CoderPermissionsCondition(map[string]bool{"group:read": true, "group:update": true, "user:read": true, "user:update": true}).Message},
	},
	"coder-permissions-all-kinds": {
		set:  connectedWith(providerconfig.CoderPermissionsCondition(map[string]bool{"ai_provider:read": true, "ai_provider:create": true, "ai_provider:update": true, "ai_provider:delete": true, "ai_gateway_key:read": true, "ai_gateway_key:create": true, "ai_gateway_key:delete": true, "group:read": true, "group:update": true, "user:read": true, "user:update": true, "deployment_config:read": true, "deployment_config:update": true})),
		want: health{"Healthy", "Connected to Coder v2.36.0; used by 2 managed resources"},
	},
	"coder-permissions-unknown": {
		// Retried each poll, as the entitlements are.
		set:  connectedWith(providerconfig.CoderPermissionsUnknown(errors.New("POST /api/v2/authcheck: 503 Service Unavailable"))),
		want: health{"Healthy", "Connected to Coder v2.36.0; used by 2 managed resources"},
	},
	"token-expires-soon": {
		set:  connectedWith(tokenCond(corev1.ConditionFalse, providerconfig.ReasonTokenExpiresSoon, msgTokenSoon)),
		want: health{"Healthy", "Connected to Coder v2.36.0; used by 2 managed resources; warning: ExpiresSoon: " + msgTokenSoon},
	},
	"token-expired": {
		set:  connectedWith(tokenCond(corev1.ConditionFalse, providerconfig.ReasonTokenExpired, msgTokenExpired)),
		want: health{"Healthy", "Connected to Coder v2.36.0; used by 2 managed resources; warning: Expired: " + msgTokenExpired},
	},
	"loopback": {
		set:  connectedWith(transport(corev1.ConditionFalse, config.ReasonLoopback, "")),
		want: health{"Healthy", "Connected to Coder v2.36.0; used by 2 managed resources"},
	},
	"released-no-dependents":          released(providerconfig.WhyNoDependents),
	"released-live-dependent-timeout": released(providerconfig.WhyLiveDependentTimeout),
	"released-dependent-timeout":      released(providerconfig.WhyDependentTimeout),
	"released-coder-unreachable":      released(providerconfig.WhyCoderUnreachable),
	"coder-unreachable": {
		set:  notReady(providerconfig.ReasonCoderUnreachable, "Get \"https://coder.example.com/api/v2/buildinfo\": dial tcp: connection refused"),
		want: health{"Progressing", "CoderUnreachable: Get \"https://coder.example.com/api/v2/buildinfo\": dial tcp: connection refused"},
	},
	"holding": {
		// Its dependents are deleting; it holds until dependentTimeout (10m).
		set: func(pc providerconfig.Object, k configKind) {
			connected(pc, 2)
			holding(pc, k.dependents, deleted.Add(4*time.Second))
		},
		want: health{"Progressing", "Holding until 2026-11-29T13:15:19Z: waiting for 2 dependents to delete their objects in Coder: {dependents}"},
	},
	"holding-live": {
		// One live dependent: it holds only for liveDependentTimeout (30s).
		set: func(pc providerconfig.Object, k configKind) {
			connected(pc, 1)
			live := k.dependents[0]
			live.Deleting = false
			holding(pc, []providerconfig.Dependent{live}, deleted.Add(4*time.Second))
		},
		want: health{"Progressing", "Holding until 2026-11-29T13:05:49Z: waiting for 1 dependent to delete their objects in Coder: {first}"},
	},
	"grace": {
		// dependentTimeout has passed: a grace of 30s + 10s x 1.
		set: func(pc providerconfig.Object, k configKind) {
			connected(pc, 2)
			holding(pc, k.dependents, deleted.Add(10*time.Minute+5*time.Second))
		},
		want: health{"Progressing", "Grace until 2026-11-29T13:15:59Z: waiting for 2 dependents to delete their objects in Coder: {dependents}"},
	},
	"deleting": {
		// Deleted a moment ago; the provider has not written the hold yet.
		set: func(pc providerconfig.Object, _ configKind) {
			connected(pc, 0)
			beingDeleted(pc, providerconfig.HoldFinalizer)
		},
		want: health{"Progressing", "Deleting"},
	},
	"no-status": {
		set:  func(providerconfig.Object, configKind) {},
		bare: true,
		want: health{"Progressing", "Waiting for the provider to check Coder"},
	},
}

// recordStates are the states of a cleanup record.
var recordStates = map[string]recordState{
	"active": {
		set: func(r *clusterv1alpha1.CleanupRecord) {
			r.Status.Phase = clusterv1alpha1.CleanupPhaseActive
		},
		want: health{"Healthy", "Active: AIGatewayKey team-a-gateway-5f0c7b1e belongs to AIGatewayKey team-a/gateway"},
	},
	"abandoned": {
		set: func(r *clusterv1alpha1.CleanupRecord) {
			abandon(r, deletion.ReasonCredentialsUnavailable)
		},
		want: health{"Degraded", "Abandoned (CredentialsUnavailable): AIGatewayKey team-a-gateway-5f0c7b1e may still exist in Coder; a sweep deletes it"},
	},
	"unwritten": {
		// Created, and the provider has not written its status yet (or
		// somebody else wrote it): the sweep never acts on it.
		set: func(r *clusterv1alpha1.CleanupRecord) {
			r.Status = clusterv1alpha1.CleanupRecordStatus{}
		},
		want: health{"Progressing", "Not written by the provider yet: it names nothing in Coder"},
	},
	"imported": {
		// An import's record names its object by id only.
		set: func(r *clusterv1alpha1.CleanupRecord) {
			r.Status.Phase, r.Status.CoderName = clusterv1alpha1.CleanupPhaseActive, ""
		},
		want: health{"Healthy", "Active: AIGatewayKey 7d4e1f2a-3b5c-4d6e-8f9a-0b1c2d3e4f5a belongs to AIGatewayKey team-a/gateway"},
	},
	// Every other reason a record turns Abandoned for: the reasons of a
	// release without delete and the failure classes of Coder's answers.
	"abandoned-other-deployment":        abandonedFor(deletion.ReasonOtherDeployment),
	"abandoned-still-present":           abandonedFor("StillPresent"),
	"abandoned-paused":                  abandonedFor(policy.ReasonPaused),
	"abandoned-unsupported-policies":    abandonedFor(policy.ReasonUnsupportedPolicies),
	"abandoned-record-delete-forbidden": abandonedFor(deletion.ReasonRecordDeleteForbidden),
	"abandoned-not-found":               abandonedFor(string(coder.ClassNotFound)),
	"abandoned-conflict":                abandonedFor(string(coder.ClassConflict)),
	"abandoned-forbidden":               abandonedFor(string(coder.ClassForbidden)),
	"abandoned-unauthorized":            abandonedFor(string(coder.ClassUnauthorized)),
	"abandoned-unavailable":             abandonedFor(string(coder.ClassUnavailable)),
	"abandoned-invalid":                 abandonedFor(string(coder.ClassInvalid)),
	"abandoned-tls":                     abandonedFor(string(coder.ClassTLS)),
	"abandoned-unknown":                 abandonedFor(string(coder.ClassUnknown)),
	"abandoned-retrying": {
		// A cluster-scoped owner, and a sweep that keeps failing.
		set: func(r *clusterv1alpha1.CleanupRecord) {
			r.Spec.Kind, r.Status.CoderName = "AIProvider", "openai"
			r.Spec.ManagedResource = clusterv1alpha1.ManagedResourceReference{
				APIVersion: clusteraiv1alpha1.SchemeGroupVersion.String(), Kind: "AIProvider",
				Name: "openai", UID: "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
			}
			abandon(r, deletion.ReasonManagedResourceGone)
			r.Status.Attempts = 3
			r.Status.LastError = "Coder is unavailable: 503 Service Unavailable"
		},
		want: health{"Degraded", "Abandoned (ManagedResourceGone): AIProvider openai may still exist in Coder; a sweep deletes it; 3 sweep attempts, last error: Coder is unavailable: 503 Service Unavailable"},
	},
}

func abandonedFor(reason string) recordState {
	return recordState{
		set:  func(r *clusterv1alpha1.CleanupRecord) { abandon(r, reason) },
		want: health{"Degraded", "Abandoned (" + reason + "): AIGatewayKey team-a-gateway-5f0c7b1e may still exist in Coder; a sweep deletes it"},
	}
}

func abandon(r *clusterv1alpha1.CleanupRecord, reason string) {
	r.Status.Phase = clusterv1alpha1.CleanupPhaseAbandoned
	r.Status.Reason = reason
	r.Status.AbandonedAt = &deleted
}

// A sample is one object in one state, as Argo CD would read it.
type sample struct {
	obj  *unstructured.Unstructured
	want health
}

// samples are every kind in every state, by testdata file name.
func samples(s *runtime.Scheme) (map[string][]sample, error) {
	out := map[string][]sample{}
	add := func(o client.Object, bare bool, want health) error {
		gvk, err := apiutil.GVKForObject(o, s)
		if err != nil {
			return err
		}
		o.GetObjectKind().SetGroupVersionKind(gvk)
		o.SetGeneration(generation)
		o.SetCreationTimestamp(created)
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
		if err != nil {
			return err
		}
		if bare {
			delete(m, "status")
		}
		file := gvk.Group + "_" + gvk.Kind + ".yaml"
		out[file] = append(out[file], sample{obj: &unstructured.Unstructured{Object: m}, want: want})
		return nil
	}

	for _, k := range apis.ManagedKinds() {
		for _, name := range sortedKeys(managedStates) {
			st := managedStates[name]
			mg := k.New()
			if st.keys && !isKey(mg) || st.only != nil && !st.only(mg) {
				continue
			}
			managedSpec(mg, name)
			st.set(mg)
			if err := add(mg, st.bare, st.want); err != nil {
				return nil, err
			}
		}
	}
	for _, k := range configKinds {
		first := k.dependents[0].String()
		for _, name := range sortedKeys(configStates) {
			st := configStates[name]
			pc, err := providerconfig.New(k.gk)
			if err != nil {
				return nil, err
			}
			configSpec(pc, name)
			st.set(pc, k)
			want := st.want
			want.Message = strings.NewReplacer("{dependents}", k.listed, "{first}", first).Replace(want.Message)
			if err := add(pc, st.bare, want); err != nil {
				return nil, err
			}
		}
	}
	for _, name := range sortedKeys(recordStates) {
		st := recordStates[name]
		r := &clusterv1alpha1.CleanupRecord{}
		r.SetName(name)
		r.Spec = clusterv1alpha1.CleanupRecordSpec{
			Kind: "AIGatewayKey",
			ManagedResource: clusterv1alpha1.ManagedResourceReference{
				APIVersion: namespacedaiv1alpha1.SchemeGroupVersion.String(), Kind: "AIGatewayKey",
				Namespace: "team-a", Name: "gateway", UID: "5f0c7b1e-2d3a-4c5b-9e8f-0123456789ab",
			},
			DeploymentID: "0b0c2f51-8c1a-4d8e-9f0e-5a6b7c8d9e0f",
		}
		r.Status = clusterv1alpha1.CleanupRecordStatus{
			CoderName:  "team-a-gateway-5f0c7b1e",
			ExternalID: "7d4e1f2a-3b5c-4d6e-8f9a-0b1c2d3e4f5a",
		}
		st.set(r)
		if err := add(r, false, st.want); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// isKey says whether mg is an AI Gateway key, of either scope.
func isKey(mg resource.Managed) bool {
	switch mg.(type) {
	case *namespacedaiv1alpha1.AIGatewayKey, *clusteraiv1alpha1.AIGatewayKey:
		return true
	}
	return false
}

// managedSpec gives a managed resource sample its name and a usual spec.
func managedSpec(mg resource.Managed, name string) {
	mg.SetName(name)
	switch mg := mg.(type) {
	case *namespacedaiv1alpha1.AIGatewayKey:
		mg.SetNamespace("team-a")
		mg.SetProviderConfigReference(&xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: "default"})
		mg.SetWriteConnectionSecretToReference(&xpv2.LocalSecretReference{Name: name + "-key"})
	case *namespacedaiv1alpha1.AIProvider:
		mg.SetNamespace("team-a")
		mg.SetProviderConfigReference(&xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: "default"})
		mg.Spec.ForProvider.AIProviderFields = providerFields()
		mg.Spec.ForProvider.APIKeySecretRefs = []common.LocalSecretKeySelector{{Name: "openai-credentials", Key: "openai"}}
	case *clusteraiv1alpha1.AIGatewayKey:
		mg.SetProviderConfigReference(&xpv2.Reference{Name: "default"})
		mg.SetDeletionPolicy(xpv2.DeletionDelete)
	case *clusteraiv1alpha1.AIProvider:
		mg.SetProviderConfigReference(&xpv2.Reference{Name: "default"})
		mg.SetDeletionPolicy(xpv2.DeletionDelete)
		mg.Spec.ForProvider.AIProviderFields = providerFields()
		mg.Spec.ForProvider.APIKeySecretRefs = []common.SecretKeySelector{{
			LocalSecretKeySelector: common.LocalSecretKeySelector{Name: "openai-credentials", Key: "openai"},
			Namespace:              "crossplane-system",
		}}
	}
}

func providerFields() common.AIProviderFields {
	enabled := true
	return common.AIProviderFields{Type: "openai", Enabled: &enabled, BaseURL: "https://api.openai.com/v1"}
}

// configSpec gives a ProviderConfig sample its name and a usual spec.
func configSpec(pc providerconfig.Object, name string) {
	pc.SetName(name)
	cluster := common.ProviderConfigSpec{
		URL: "https://coder.example.com",
		Credentials: common.Credentials{Source: common.CredentialsSourceSecret, SecretRef: &common.SecretKeySelector{
			LocalSecretKeySelector: common.LocalSecretKeySelector{Name: "coder-token", Key: "token"},
			Namespace:              "crossplane-system",
		}},
	}
	switch pc := pc.(type) {
	case *namespacedv1alpha1.ProviderConfig:
		pc.SetNamespace("team-a")
		pc.Spec = common.LocalProviderConfigSpec{
			URL: "https://coder.example.com",
			Credentials: common.LocalCredentials{
				Source: common.CredentialsSourceSecret, SecretRef: &common.LocalSecretKeySelector{Name: "coder-token", Key: "token"},
			},
		}
	case *namespacedv1alpha1.ClusterProviderConfig:
		pc.Spec = cluster
	case *clusterv1alpha1.ProviderConfig:
		pc.Spec = cluster
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
