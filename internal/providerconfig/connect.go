package providerconfig

import (
	"context"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
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
	Client *coder.Client
	// Config is the ProviderConfig the resource uses.
	Config Object
	Ref    Ref
	URL    string
	// Scope identifies the ProviderConfig and the Coder it points at, for
	// caches shared between the resources of one ProviderConfig.
	Scope string
}

// Connect resolves the ProviderConfig of mg and returns a client for it.
func (c *Connector) Connect(ctx context.Context, mg resource.Managed) (Session, error) {
	ref, err := RefOf(mg)
	if err != nil {
		return Session{}, err
	}
	pc, err := Get(ctx, c.Kube, ref)
	if err != nil {
		return Session{}, err
	}
	conn := ConnectionOf(pc)
	cfg, err := ClientConfig(ctx, c.Kube, conn, c.Timeout)
	if err != nil {
		return Session{}, err
	}
	cl, err := c.Clients.Get(cfg)
	if err != nil {
		return Session{}, errors.Wrap(err, errBuildClient)
	}
	return Session{Client: cl, Config: pc, Ref: ref, URL: conn.URL, Scope: ref.IndexValue() + " " + conn.URL}, nil
}
