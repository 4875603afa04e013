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

package provider

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	xperrors "github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
)

// Crossplane's package manager starts a provider's pod and its RBAC manager
// grants the pod its package's kinds, through the ClusterRole
// crossplane:provider:<revision>:system, on their own schedules: the
// binding may name a role that does not exist yet. A provider that starts
// its controllers then is refused everything ("RBAC: clusterrole ... not
// found"), and one that decides once whether it may read CRDs (SafeStart's
// gate) decides wrong for its whole life. So the provider asks first, and
// starts once RBAC lets it list and watch its own CleanupRecords, a kind of
// its package that only that role grants.
const (
	// GrantWaitBound is how long the provider waits for its grant before it
	// starts anyway (and is refused, and says so, as before): every wait is
	// bounded, and RBAC written by hand may never grant the probe's kind.
	GrantWaitBound = 5 * time.Minute
	grantWaitEvery = time.Second
)

// grantVerbs on grantResource are what the provider asks before it starts.
var (
	grantVerbs    = []string{"list", "watch"}
	grantResource = authorizationv1.ResourceAttributes{Group: clusterv1alpha1.Group, Resource: "cleanuprecords"}
)

// A Review asks the API server whether the provider may verb on its own
// CleanupRecords; why is the authorizer's answer when it may not.
type Review func(ctx context.Context, verb string) (allowed bool, why string, err error)

// SelfReview asks with a SelfSubjectAccessReview, which every
// authenticated user may create.
func SelfReview(c client.Client) Review {
	return func(ctx context.Context, verb string) (bool, string, error) {
		attrs := grantResource
		attrs.Verb = verb
		r := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &attrs}}
		if err := c.Create(ctx, r); err != nil {
			return false, "", err
		}
		why := strings.TrimSpace(strings.Join([]string{r.Status.Reason, r.Status.EvaluationError}, " "))
		return r.Status.Allowed, why, nil
	}
}

// waitForGrant starts nothing before RBAC grants the provider its own kinds:
// at an install, Crossplane's RBAC manager may create the provider's role
// after its pod started (WaitForGrant).
func waitForGrant(ctx context.Context, cfg *rest.Config, s *runtime.Scheme, log logging.Logger, o Options) error {
	c, err := client.New(cfg, client.Options{Scheme: s})
	if err != nil {
		return xperrors.Wrap(err, "cannot create the client that reviews the provider's RBAC")
	}
	_, _, err = WaitForGrant(ctx, GrantWait{Review: SelfReview(c), Log: log, Bound: GrantWaitBound, Every: grantWaitEvery, Probes: o.HealthProbeBindAddress})
	return err
}

// GrantWait says how the provider waits for its grant.
type GrantWait struct {
	Review Review
	Log    logging.Logger
	// Bound and Every: how long at most, and how often it asks.
	Bound, Every time.Duration
	// Probes is the health probes' address: while it waits, the provider
	// answers /healthz (alive) and refuses /readyz there, so that a pod
	// with a readiness probe is not Ready, and its Provider not Healthy,
	// before it may work, and a liveness probe does not restart it. Empty
	// or "0": no probes.
	Probes string
}

// WaitForGrant returns once Review allows every verb of grantVerbs, or
// once Bound passed (then the provider starts anyway, and says so). It
// says whether it was granted and how long it waited. An error is ctx's,
// or the review's own failure lasting the whole bound.
func WaitForGrant(ctx context.Context, w GrantWait) (granted bool, waited time.Duration, err error) {
	start := time.Now()
	var stop func()
	defer func() {
		if stop != nil {
			stop()
		}
	}()
	told := false
	for {
		ok, why, rerr := allowed(ctx, w.Review)
		switch {
		case rerr == nil && ok:
			if told {
				w.Log.Info("RBAC now lets the provider list and watch its own cleanup records: starting its controllers", "waited", time.Since(start).Round(time.Millisecond))
			}
			return true, time.Since(start), nil
		case rerr == nil && !told:
			told = true
			w.Log.Info("Waiting for RBAC to let the provider list and watch its own cleanup records before it starts its controllers: "+
				"Crossplane's RBAC manager grants a provider its package's kinds through the ClusterRole crossplane:provider:<revision>:system, "+
				"which it may create after the provider's pod started",
				"revision", os.Getenv("REVISION_NAME"), "reason", why, "bound", w.Bound)
		}
		if stop == nil && w.Probes != "" && w.Probes != "0" {
			stop = serveWaitingProbes(w.Probes, w.Log)
		}
		if time.Since(start) >= w.Bound {
			if rerr != nil {
				return false, time.Since(start), xperrors.Wrap(rerr, "cannot review whether the provider may list and watch its own cleanup records")
			}
			w.Log.Info("RBAC still refuses the provider its own cleanup records: starting its controllers anyway; what they are refused is logged",
				"waited", time.Since(start).Round(time.Millisecond), "reason", why)
			return false, time.Since(start), nil
		}
		select {
		case <-ctx.Done():
			return false, time.Since(start), ctx.Err()
		case <-time.After(w.Every):
		}
	}
}

// allowed asks for every verb of grantVerbs.
func allowed(ctx context.Context, review Review) (bool, string, error) {
	for _, verb := range grantVerbs {
		ok, why, err := review(ctx, verb)
		if err != nil || !ok {
			return false, why, err
		}
	}
	return true, "", nil
}

// serveWaitingProbes answers the health probes while the provider waits:
// alive, not ready. It stops before the manager binds the address. A
// failure to listen is logged and leaves the probes unanswered, as they
// were before.
func serveWaitingProbes(addr string, log logging.Logger) (stop func()) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		log.Info("Cannot answer the health probes while waiting for RBAC", "address", addr, "error", err.Error())
		return func() {}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "waiting for RBAC to grant the provider its own kinds (crossplane:provider:<revision>:system)", http.StatusServiceUnavailable)
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Info("The health probes' server while waiting for RBAC stopped", "error", err.Error())
		}
	}()
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		<-done
	}
}
