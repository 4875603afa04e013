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
	"time"

	"github.com/coder/coder/v2/codersdk"

	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
)

// A providerClaim names the provider one owner may have in Coder. Provider
// names are chosen by users and may be reused by anyone, so a name proves
// nothing on its own: a provider found by name is the claim's only when
// Coder created it within the window of the owner's last create attempt
// whose answer may have been lost. Times are by our clock; each meets
// Coder's creation time only on Coder's clock.
type providerClaim struct {
	// ID is the provider's Coder id, once known.
	ID string
	// Name is the provider's Coder-wide name.
	Name string
	// Attempt is when the last create was sent; zero when none may have
	// written anything.
	Attempt time.Time
	// NotBefore, when set, is the earliest creation time a provider of the
	// claim can have, by id as by name.
	NotBefore time.Time
}

// FindProviders returns the providers in Coder the claim owns: the one of
// its id, and the one of its name if the claim's create attempt made it.
// Providers another resource holds are not the claim's. The
// provider of its id dated before NotBefore is an error (errPredates): not
// the claim's, yet not absent.
func FindProviders(ctx context.Context, cl *coder.Client, c providerClaim, owned Owned) ([]codersdk.AIProvider, error) {
	var out []codersdk.AIProvider
	if c.ID != "" && !owned.has(c.ID) {
		p, err := cl.GetProvider(ctx, c.ID)
		switch {
		case err == nil:
			if err := notBefore("provider "+p.ID.String(), p.CreatedAt, c.NotBefore, cl.Clock()); err != nil {
				return nil, err
			}
			out = append(out, p)
		case !coder.IsNotFound(err):
			return nil, err
		}
	}
	if c.Name == "" || c.Attempt.IsZero() {
		return out, nil
	}
	p, err := cl.GetProvider(ctx, c.Name)
	if coder.IsNotFound(err) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	if p.ID.String() == c.ID || owned.has(p.ID.String()) {
		return out, nil
	}
	ours, err := CreatedByAttempt(p.CreatedAt, c.Attempt, cl.Timeout(), cl.Clock())
	switch {
	case err != nil:
		return nil, err
	case !ours:
		return out, nil
	}
	return append(out, p), nil
}

// DeleteProvider asks Coder to delete (soft-delete) a provider by id; one
// already gone is fine.
func DeleteProvider(ctx context.Context, cl *coder.Client, id string) error {
	if err := cl.DeleteProvider(ctx, id); err != nil && !coder.IsNotFound(err) {
		return err
	}
	return nil
}
