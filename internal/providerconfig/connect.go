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

package providerconfig

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
)

const errBuildClient = "cannot build Coder client"

// A Connector gives managed resources a Coder client for the ProviderConfig
// they use. Every managed kind shares it, so one client (and its
// connections) serves every resource of a ProviderConfig.
type Connector struct {
	Kube    client.Reader
	Clients *coder.Cache
	// Timeout bounds each Coder request.
	Timeout time.Duration
}

// A Session is what a managed resource needs to talk to Coder.
type Session struct {
	// Client is nil in a bounded pass that could not build one (the
	// ProviderConfig or its Secret is gone).
	Client *coder.Client
	// Mode is how a deleting resource deletes; see DependentMode.
	Mode Mode
	// CreateRefused says why nothing may be created in Coder through the
	// ProviderConfig now (see CreateRefused); empty when creates may go
	// ahead.
	CreateRefused string
	// DeploymentID is the Coder deployment the ProviderConfig reaches.
	DeploymentID string
	URL          string
	// Ref is the ProviderConfig.
	Ref Ref
	// Scope identifies the Coder the client reaches and its credential
	// (coder.ListScope), for caches shared by every resource whose
	// ProviderConfig reaches Coder as the same user: the key list.
	Scope string
}

// Connect resolves the ProviderConfig of mg and returns a client for it.
func (c *Connector) Connect(ctx context.Context, mg resource.Managed) (Session, error) {
	ref, err := RefOf(mg)
	if err != nil {
		return Session{}, err
	}
	deleting := meta.WasDeleted(mg)
	pc, err := Get(ctx, c.Kube, ref)
	if err != nil {
		if deleting && kerrors.IsNotFound(err) {
			// Nothing holds for this resource any more: one bounded pass,
			// which without credentials is a release without delete.
			return Session{Mode: DependentMode(ConfigState{Gone: true})}, nil
		}
		return Session{}, err
	}
	s := Session{Mode: ModeNormal, CreateRefused: CreateRefused(pc), DeploymentID: StatusOf(pc).DeploymentID, Ref: ref}
	conn := ConnectionOf(pc)
	if deleting {
		st, err := c.stateOf(ctx, mg, pc)
		if err != nil {
			return Session{}, err
		}
		s.Mode = DependentMode(st)
	} else if s.DeploymentID == "" {
		// Cleanup records name the deployment: wait for the first check.
		return Session{}, errors.Errorf("%s has not reported Coder's deployment id yet; is it Ready?", ref)
	}
	s.URL = conn.URL
	cfg, err := ClientConfig(ctx, c.Kube, conn, c.Timeout)
	if err != nil {
		if s.Mode == ModeBoundedPass {
			return s, nil
		}
		return Session{}, err
	}
	s.Scope = coder.ListScope(cfg)
	if s.Client, err = c.Clients.Get(cfg); err != nil {
		return Session{}, errors.Wrap(err, errBuildClient)
	}
	return s, nil
}

// DeleteMode is how a deleting mg deletes now (DependentMode), and the
// time at which the clock alone changes that: its namespace bound, zero when
// only a change of its ProviderConfig can.
func (c *Connector) DeleteMode(ctx context.Context, mg resource.Managed) (Mode, time.Time, error) {
	ref, err := RefOf(mg)
	if err != nil {
		return "", time.Time{}, err
	}
	pc, err := Get(ctx, c.Kube, ref)
	if kerrors.IsNotFound(err) {
		return DependentMode(ConfigState{Gone: true}), time.Time{}, nil
	}
	if err != nil {
		return "", time.Time{}, err
	}
	st, err := c.stateOf(ctx, mg, pc)
	if err != nil {
		return "", time.Time{}, err
	}
	return DependentMode(st), st.NamespaceBound(), nil
}

// stateOf is what a deleting mg knows of its ProviderConfig pc, now.
func (c *Connector) stateOf(ctx context.Context, mg resource.Managed, pc Object) (ConfigState, error) {
	st := StateOf(pc)
	var err error
	if st.NamespaceDeletedAt, err = c.namespaceDeletedAt(ctx, mg); err != nil {
		return ConfigState{}, err
	}
	st.DependentTimeout, st.Now = BoundsFrom(ConnectionOf(pc).Deletion).DependentTimeout, time.Now()
	return st, nil
}

// namespaceDeletedAt is when mg's namespace began deleting; zero while it
// is not, and for a cluster-scoped mg.
func (c *Connector) namespaceDeletedAt(ctx context.Context, mg resource.Managed) (time.Time, error) {
	if mg.GetNamespace() == "" {
		return time.Time{}, nil
	}
	ns := &corev1.Namespace{}
	if err := c.Kube.Get(ctx, types.NamespacedName{Name: mg.GetNamespace()}, ns); err != nil {
		return time.Time{}, errors.Wrap(err, "cannot get the managed resource's namespace")
	}
	if ns.DeletionTimestamp == nil {
		return time.Time{}, nil
	}
	return ns.DeletionTimestamp.Time, nil
}

// StateOf is what a dependent knows of its ProviderConfig.
func StateOf(pc Object) ConfigState {
	st := ConfigState{Deleting: pc.GetDeletionTimestamp() != nil}
	if h := StatusOf(pc).Hold; h != nil {
		st.Phase = Phase(h.Phase)
	}
	return st
}
