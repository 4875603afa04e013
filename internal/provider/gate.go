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

	authorizationv1 "k8s.io/api/authorization/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	xpcontroller "github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/customresourcesgate"

	"github.com/crossplane-contrib/provider-coder/internal/activation"
)

// crdVerbs are what crossplane-runtime's CRD gate needs: Crossplane grants
// them to a provider that declares SafeStart.
var crdVerbs = []string{"get", "list", "watch"}

// Gating says how the provider starts its gated kinds.
type Gating int

const (
	// GateOnCRDs starts each kind when its CRD is served.
	GateOnCRDs Gating = iota
	// StartAll starts every kind at once, as before SafeStart.
	StartAll
)

// Gate decides how the provider starts its kinds from whether it may read
// CRDs: a provider that may not (a Crossplane that ignores SafeStart, RBAC
// written by hand without it) could never learn that a kind's CRD is
// served, so it starts every kind at once rather than none.
func Gate(mayReadCRDs bool) Gating {
	if mayReadCRDs {
		return GateOnCRDs
	}
	return StartAll
}

// gateKinds returns the Kinds the controllers start through, and adds the
// CRD gate reconciler that feeds them when the provider may read CRDs.
func gateKinds(ctx context.Context, mgr ctrl.Manager, log logging.Logger) (*activation.Kinds, error) {
	may, err := mayReadCRDs(ctx, mgr.GetClient())
	if err != nil {
		return nil, err
	}
	if Gate(may) == StartAll {
		log.Info("The provider may not get, list and watch CustomResourceDefinitions, so it cannot tell which kinds Crossplane activated: it starts every kind now. Kinds whose CRD is not served then fail to start")
		return activation.All(log), nil
	}
	kinds := activation.New(log, mgr.GetRESTMapper(), mgr.GetClient())
	if err := customresourcesgate.Setup(mgr, xpcontroller.Options{Logger: log, Gate: kinds}); err != nil {
		return nil, errors.Wrap(err, "cannot set up the CRD gate")
	}
	return kinds, nil
}

// mayReadCRDs asks the API server whether the provider may get, list and
// watch CRDs cluster-wide.
func mayReadCRDs(ctx context.Context, c client.Client) (bool, error) {
	for _, verb := range crdVerbs {
		r := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
			ResourceAttributes: &authorizationv1.ResourceAttributes{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions", Verb: verb},
		}}
		if err := c.Create(ctx, r); err != nil {
			return false, errors.Wrap(err, "cannot review whether the provider may read CustomResourceDefinitions")
		}
		if !r.Status.Allowed {
			return false, nil
		}
	}
	return true, nil
}
