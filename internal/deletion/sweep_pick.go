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

package deletion

import (
	"context"

	corev1 "k8s.io/api/core/v1"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
)

// A SweepConfig is a Ready ProviderConfig the sweep may delete through.
type SweepConfig struct {
	// Origin is the ProviderConfig, its canonical URL and the deployment
	// id its Coder reported. Any server can report any id, so it says
	// which records the ProviderConfig could serve, never which it may.
	Origin Origin
	// Client is built the first time the sweep picks the ProviderConfig:
	// a sweep reads the token Secrets of only the ProviderConfigs it uses.
	Client *coder.Client
	// Unusable: no client could be built (its Secret cannot be read); it
	// is never picked.
	Unusable bool

	conn providerconfig.Connection
}

// A SweepPick is the ProviderConfig picked to sweep a record.
type SweepPick struct {
	// Index of the ProviderConfig in the configs SweeperFor was given.
	Index int
}

// SweeperFor picks the ProviderConfig that sweeps a record made at rec,
// of a resource in namespace ns (empty: a cluster-scoped resource).
//
// A record that names its ProviderConfig is swept through that one, if it
// still reaches the same URL and deployment, and otherwise through a
// cluster-scoped one (which only the platform team creates) of that URL
// and deployment, which deletes by recorded id and UID-derived name only:
// its credentials are not the ones that made the object, and may see
// objects of the same name that are someone else's. A tenant's server that
// claims the platform's deployment id is at another URL, and sweeps
// nothing of the platform's; nor can the platform's ProviderConfig sweep a
// tenant's record by a name that tenant chose.
//
// A record written before records named their ProviderConfig is swept by
// deployment, through a cluster-scoped ProviderConfig or one in the
// resource's own namespace, cluster-scoped first.
func SweeperFor(configs []SweepConfig, rec Origin, ns string) (SweepPick, bool) {
	if rec.Legacy() {
		return legacySweeperFor(configs, rec.DeploymentID, ns)
	}
	cluster := -1
	for i, c := range configs {
		switch {
		case c.Unusable:
		case rec.MadeBy(c.Origin):
			return SweepPick{Index: i}, true
		case c.Origin.ProviderConfig.Namespace == "" && rec.SameCoder(c.Origin) && cluster < 0:
			cluster = i
		}
	}
	return SweepPick{Index: cluster}, cluster >= 0
}

// legacySweeperFor is SweeperFor for a record that names no ProviderConfig.
func legacySweeperFor(configs []SweepConfig, id, ns string) (SweepPick, bool) {
	own := -1
	for i, c := range configs {
		switch {
		case id == "" || c.Origin.DeploymentID != id || c.Unusable:
		case c.Origin.ProviderConfig.Namespace == "":
			return SweepPick{Index: i}, true
		case c.Origin.ProviderConfig.Namespace == ns && own < 0:
			own = i
		}
	}
	return SweepPick{Index: own}, own >= 0
}

// sweeperFor returns the client of the ProviderConfig that sweeps rec
// (see SweeperFor), building it on first use, and the Coder it reaches
// (which decides whether it may delete by name: ByName); nil when none is
// entitled.
func (s *Sweeper) sweeperFor(ctx context.Context, configs []SweepConfig, rec *clusterv1alpha1.CleanupRecord) (*coder.Client, Origin) {
	for {
		sw, ok := SweeperFor(configs, originOf(rec), rec.Spec.ManagedResource.Namespace)
		if !ok {
			return nil, Origin{}
		}
		c := &configs[sw.Index]
		if c.Client != nil {
			return c.Client, c.Origin
		}
		cfg, err := providerconfig.ClientConfig(ctx, s.Kube, c.conn, s.Timeout)
		if err == nil {
			c.Client, err = s.Clients.Get(cfg)
		}
		if err != nil {
			c.Unusable = true
			continue
		}
		return c.Client, c.Origin
	}
}

// readyConfigs returns the Ready ProviderConfigs that are not being
// deleted and may sweep. It reads them uncached: the sweep a
// ProviderConfig's turning Ready triggers must see it Ready.
func (s *Sweeper) readyConfigs(ctx context.Context) ([]SweepConfig, error) {
	var out []SweepConfig
	for _, gk := range providerconfig.Kinds() {
		l, _ := providerconfig.NewList(gk)
		if err := s.Reader.List(ctx, l); err != nil {
			return nil, errors.Wrap(err, "cannot list ProviderConfigs")
		}
		for _, pc := range providerconfig.Items(l) {
			id := providerconfig.StatusOf(pc).DeploymentID
			if id == "" || pc.GetDeletionTimestamp() != nil || pc.GetCondition(xpv2.TypeReady).Status != corev1.ConditionTrue {
				continue
			}
			if conn := providerconfig.ConnectionOf(pc); conn.Sweep {
				out = append(out, SweepConfig{conn: conn, Origin: Origin{DeploymentID: id, ProviderConfig: clusterv1alpha1.RecordedProviderConfig{
					Group: gk.Group, Kind: gk.Kind, Namespace: pc.GetNamespace(), Name: pc.GetName(), URL: coder.CanonicalURL(conn.URL),
				}}})
			}
		}
	}
	return out, nil
}
