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

// Package deletion is everything that decides and does the deletion of a
// managed resource's objects in Coder, in one room: the records are the
// deletion.
//
//   - The cleanup records, written before every create (records.go), read
//     per resource (set.go), where each object was made (origin.go), and
//     the one rule of ownership per Coder (coder.go: Speaks): who owns an
//     object (owner.go, pending.go), which live resource holds one
//     (live_owners.go), what a record names (claims.go), a budget's records
//     (budget_records.go) and who owns a budget row (budget_owner.go).
//   - Every kind's objects in Coder, registered once (kinds.go:
//     objectKinds, beside apis.ManagedKinds()): how to find what records
//     name and how to delete it, per kind in coder_keys.go,
//     coder_providers.go and coder_budgets.go, with what Coder's answers
//     prove (coder_find.go, coder_absence.go).
//   - The deleting resource's external client (pass.go; its one bounded
//     attempt in bounded.go, decided by DecidePass in decide.go, with what
//     spans its reconciles in releases.go; its records' look in verify.go)
//     and its finalizer (finalizer.go).
//   - The sweep, which deletes later what a release without delete left
//     (sweep.go; through which ProviderConfig, sweep_pick.go; each
//     Coder's share, sweep_share.go; woken when a resource vanishes,
//     sweep_vanished.go).
//
// Ownership is proven by what the provider recorded (ids, UID-derived
// names, the time of its own create attempt), never by anything a tenant
// can write or a server can claim, and "gone" counts only in the Coder
// that made the object, on an answer that means nothing else.
//
// The deleting resource, its bounded pass and the sweep find and delete
// through the same objectKinds, so a kind registered there inherits the
// whole contract. It imports no controller; every kind's controller
// imports it.
package deletion
