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
//   - The cleanup records, written before every create and read per
//     resource, from the cache or past it (records.go); what only a key's
//     rotations and a budget's rows record, and who may write a budget row
//     (kind_records.go).
//   - Who owns what, per Coder (owner.go): where a record's object was
//     made (Origin), the one rule of ownership per Coder (Speaks), who owns
//     an object and which live resource holds one, and what a key record
//     names.
//   - Every kind's objects in Coder, registered once (kinds.go:
//     objectKinds, beside apis.ManagedKinds()): how to find what records
//     name and how to delete it, with what Coder's answers prove. Objects
//     whose name users choose, AI providers and MCP servers, share one rule
//     (named.go), with how a live resource adopts one by name
//     (AdoptByName); a budget row is ours while Coder shows our updated_at
//     (budgets.go).
//   - The external client of a managed resource (pass.go, Wrap): a live
//     resource reaches its kind's own client through live.go, which writes
//     the record before every create; a deleting one never does. Its
//     Observe is the registry's find over its records and its Delete the
//     registry's remove (pass.go). Its one bounded attempt, each look's
//     next step (Next, DecidePass) and what spans its reconciles
//     (Releases) are in bounded.go, and its finalizer in finalizer.go.
//   - The sweep, which deletes later what a release without delete left
//     (sweep.go, woken when a resource vanishes; through which
//     ProviderConfig and each Coder's share, sweep_share.go).
//
// The management policies it obeys are the managed reconciler's
// (internal/policy).
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
