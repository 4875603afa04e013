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
	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
)

// Speaks reports whether what was made at o (a record's origin, or the
// Coder a live resource's ProviderConfig reaches) speaks of the Coder at
// now, the one the caller acts on. This is the one rule of ownership per
// Coder (DESIGN §9): a record, a live resource's external name or a
// pending create says who owns or holds an object only in the Coder it was
// made through. Every decision of who owns or holds an object (holders,
// owners, budget owners, pending creates, imports, the sweep's exceptions)
// passes its records and resources through it first, so a tenant's own
// server, answering with ids it saw in the platform's Coder, can shield,
// block or adopt nothing there.
//
// The Coder is the canonical URL and the deployment id, as SameCoder
// compares them. Where now's deployment is not known yet, the URL alone
// decides and a record of no URL (written before records named one)
// speaks: of two wrong answers, counting a record of another deployment
// refuses or holds, and missing one of ours adopts or deletes.
func Speaks(o, now Origin) bool {
	if now.DeploymentID == "" {
		return o.Legacy() || o.ProviderConfig.URL == now.ProviderConfig.URL
	}
	return o.SameCoder(now)
}

// SpeaksOf reports whether rec speaks of the Coder at now (Speaks): only
// such records may enter any ownership decision about an object there.
// Callers test it in their own loop over the records they read, so the
// sweep's pass over every record copies none.
func SpeaksOf(rec *clusterv1alpha1.CleanupRecord, now Origin) bool {
	return Speaks(originOf(rec), now)
}
