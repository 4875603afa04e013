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

package testenv

import "testing"

// TestTheRealCoderIsSkippedOnKind: on kind the real Coder would run on this
// host's loopback and its URL would go into a ProviderConfig the provider's
// pod cannot reach; the scenario's real half skips instead of failing.
func TestTheRealCoderIsSkippedOnKind(t *testing.T) {
	var c Cluster = &kindCluster{}
	var sub *testing.T
	var got Coder
	t.Run("real", func(t *testing.T) {
		sub = t
		got = c.RealCoder(t)
	})
	if !sub.Skipped() || got != nil {
		t.Errorf("RealCoder on kind: skipped %t, Coder %v; want skipped, none", sub.Skipped(), got)
	}
}
