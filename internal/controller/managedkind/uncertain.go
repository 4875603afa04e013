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
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
)

// AnnotationRefusedCreate holds the external-create-pending time of the last
// create attempt that certainly wrote nothing: Coder refused it, or it was
// never sent. An object found by name is never taken for the result of that
// attempt. It is a copy rather than a removal of the pending annotation, so a
// refused create writes the object no more often than crossplane-runtime's
// own bookkeeping does, and the reconciler's backoff holds.
const AnnotationRefusedCreate = "coder.crossplane.io/refused-create"

// MarkRefused records that the pending create attempt certainly wrote
// nothing. The reconciler persists it with its own annotations.
func MarkRefused(mg resource.Managed) {
	meta.AddAnnotations(mg, map[string]string{AnnotationRefusedCreate: mg.GetAnnotations()[meta.AnnotationKeyExternalCreatePending]})
}

// UncertainAttempt is when the last create attempt whose outcome is unknown
// was made, from the object's annotations; zero when there is none.
func UncertainAttempt(annotations map[string]string) time.Time {
	pending := annotations[meta.AnnotationKeyExternalCreatePending]
	if pending == "" || annotations[AnnotationRefusedCreate] == pending {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339, pending)
	if err != nil {
		return time.Time{}
	}
	return t
}
