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

	"github.com/coder/coder/v2/codersdk"
	"github.com/google/uuid"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
)

// KindMCPServer is the record kind of an MCP server.
const KindMCPServer = "MCPServer"

// An MCP server record names what a provider record does (providerClaimOf):
// its id once known, and its slug, which, like a provider's name, anyone
// may have chosen, so it counts only for a server Coder created within the
// window of the record's last create attempt, and only through the
// ProviderConfig that made it.
func findMCPServers(ctx context.Context, l look, recs []*clusterv1alpha1.CleanupRecord) []found {
	out := make([]found, len(recs))
	for i, rec := range recs {
		c, err := providerClaimOf(rec, ByName(originOf(rec), l.now))
		if err == nil {
			var ss []codersdk.MCPServerConfig
			ss, err = FindMCPServers(ctx, l.cl, c, l.owned)
			for _, s := range ss {
				out[i].ids = append(out[i].ids, s.ID.String())
			}
		}
		out[i].err = err
	}
	return out
}

// FindMCPServers returns the MCP servers in Coder the claim owns: the one
// of its id, and the one of its slug (the claim's Name) if the claim's
// create attempt made it. Servers another resource holds are not the
// claim's; the server of its id dated before NotBefore is an error
// (errPredates): not the claim's, yet not absent. Coder reads a server by
// id only, so the slug is looked up on the list.
func FindMCPServers(ctx context.Context, cl *coder.Client, c providerClaim, owned Owned) ([]codersdk.MCPServerConfig, error) {
	var out []codersdk.MCPServerConfig
	if id, err := uuid.Parse(c.ID); err == nil && !owned.has(c.ID) {
		s, err := cl.GetMCPServer(ctx, id)
		switch {
		case err == nil:
			if err := notBefore("MCP server "+s.ID.String(), s.CreatedAt, c.NotBefore, cl.Clock()); err != nil {
				return nil, err
			}
			out = append(out, s)
		case !coder.IsNotFound(err):
			return nil, err
		}
	}
	if c.Name == "" || c.Attempt.IsZero() {
		return out, nil
	}
	all, err := cl.ListMCPServers(ctx)
	if err != nil {
		return nil, err
	}
	for _, s := range all {
		if s.Slug != c.Name || s.ID.String() == c.ID || owned.has(s.ID.String()) {
			continue
		}
		ours, err := CreatedByAttempt(s.CreatedAt, c.Attempt, cl.Timeout(), cl.Clock())
		if err != nil {
			return nil, err
		}
		if ours {
			out = append(out, s)
		}
	}
	return out, nil
}

// DeleteMCPServer asks Coder to delete an MCP server by id; one already
// gone is fine.
func DeleteMCPServer(ctx context.Context, cl *coder.Client, id string) error {
	u, err := uuid.Parse(id)
	if err != nil {
		return err
	}
	if err := cl.DeleteMCPServer(ctx, u); err != nil && !coder.IsNotFound(err) {
		return err
	}
	return nil
}
