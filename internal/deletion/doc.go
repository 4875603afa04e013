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

// Package deletion decides and does the deletion of a managed resource's
// objects in Coder, in one room: the records are the deletion.
//
//   - records.go: the cleanup records, written before every create;
//     kind_records.go: what only key rotations and budget rows record.
//   - owner.go: who owns what, per Coder (Speaks, Origin, OtherCoder).
//   - kinds.go: every kind's objects, registered once (objectKinds): how to
//     find and delete what records name, and what a deleting resource's
//     records leave; named.go: objects whose name users choose;
//     budgets.go: a budget row, ours while Coder shows our updated_at.
//   - pass.go: a managed resource's external client (Wrap): a live one
//     through its kind's client (live.go), a deleting one through its
//     records only, on the normal path or the bounded pass (Next,
//     DecidePass).
//   - finalizer.go: the finalizer, and Releases, what spans reconciles.
//   - sweep.go, sweep_share.go: the sweep of what a release without delete
//     left.
//
// Ownership is proven by what the provider recorded, never by what a tenant
// can write or a server claim, and "gone" counts only in the Coder that made
// the object. It imports no controller; every kind's controller imports it.
package deletion
