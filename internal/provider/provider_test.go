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

package provider

import (
	"testing"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// The provider paces itself (--max-reconcile-rate, per namespace); a
// client-side throttle below that rate made `make run` create one key a
// second (client-go's default is 5 requests a second).
func TestRESTConfigHasNoClientSideThrottle(t *testing.T) {
	cfg := RESTConfig(&rest.Config{Host: "https://127.0.0.1:6443", QPS: 5, Burst: 10})
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if l := c.CoreV1().RESTClient().GetRateLimiter(); l != nil {
		t.Errorf("the provider's REST client is throttled at %.0f requests a second", l.QPS())
	}
}
