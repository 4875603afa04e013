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

package managedkind

import (
	"context"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
)

// The cleanup pass wraps any kind's client, so it takes and gives untyped
// clients; the reconciler and the kinds use typed ones. These two adapters
// join them. crossplane-runtime has the typed-to-untyped one, unexported.

const errFmtNotKind = "managed resource is a %T, not of this controller's kind"

// untyped is a kind's typed client as the cleanup pass takes it.
type untyped[R resource.Managed] struct {
	c managed.TypedExternalClient[R]
}

func (u untyped[R]) Observe(ctx context.Context, mg resource.Managed) (managed.ExternalObservation, error) {
	r, ok := mg.(R)
	if !ok {
		return managed.ExternalObservation{}, errors.Errorf(errFmtNotKind, mg)
	}
	return u.c.Observe(ctx, r)
}

func (u untyped[R]) Create(ctx context.Context, mg resource.Managed) (managed.ExternalCreation, error) {
	r, ok := mg.(R)
	if !ok {
		return managed.ExternalCreation{}, errors.Errorf(errFmtNotKind, mg)
	}
	return u.c.Create(ctx, r)
}

func (u untyped[R]) Update(ctx context.Context, mg resource.Managed) (managed.ExternalUpdate, error) {
	r, ok := mg.(R)
	if !ok {
		return managed.ExternalUpdate{}, errors.Errorf(errFmtNotKind, mg)
	}
	return u.c.Update(ctx, r)
}

func (u untyped[R]) Delete(ctx context.Context, mg resource.Managed) (managed.ExternalDelete, error) {
	r, ok := mg.(R)
	if !ok {
		return managed.ExternalDelete{}, errors.Errorf(errFmtNotKind, mg)
	}
	return u.c.Delete(ctx, r)
}

func (u untyped[R]) Disconnect(ctx context.Context) error { return u.c.Disconnect(ctx) }

// typed is the cleanup pass's client as the reconciler's typed connector
// returns it.
type typed[R resource.Managed] struct {
	c managed.ExternalClient
}

func (t typed[R]) Observe(ctx context.Context, mg R) (managed.ExternalObservation, error) {
	return t.c.Observe(ctx, mg)
}

func (t typed[R]) Create(ctx context.Context, mg R) (managed.ExternalCreation, error) {
	return t.c.Create(ctx, mg)
}

func (t typed[R]) Update(ctx context.Context, mg R) (managed.ExternalUpdate, error) {
	return t.c.Update(ctx, mg)
}

func (t typed[R]) Delete(ctx context.Context, mg R) (managed.ExternalDelete, error) {
	return t.c.Delete(ctx, mg)
}

func (t typed[R]) Disconnect(ctx context.Context) error { return t.c.Disconnect(ctx) }
