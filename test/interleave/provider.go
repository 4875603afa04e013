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

package interleave

import "time"

// Flags is how the harness runs the provider binary: its production
// defaults but for the three knobs the scenario suite compresses too
// (test/e2e/main_test.go says why): the poll, Coder's request timeout and
// the key list's TTL below the poll.
var Flags = []string{"--debug", "--poll=3s", "--coder-timeout=2s", "--key-list-ttl=2s", "--health-probe-bind-address=0"}

// PollInterval is the provider's poll under Flags.
const PollInterval = 3 * time.Second
