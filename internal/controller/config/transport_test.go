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

package config

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
)

func TestPlainHTTPToAnotherHostCarriesAWarning(t *testing.T) {
	type want struct {
		Status corev1.ConditionStatus
		Reason xpv2.ConditionReason
	}
	cases := map[string]struct {
		reason string
		url    string
		want   want
	}{
		"HTTPS":             {"TLS protects the token", "https://coder.example.com", want{corev1.ConditionFalse, ReasonTLS}},
		"HTTPRemote":        {"the token crosses the network in clear text", "http://coder.example.com", want{corev1.ConditionTrue, ReasonPlaintextHTTP}},
		"HTTPClusterLocal":  {"a Service in the cluster is still a network", "http://coder.coder.svc:8080", want{corev1.ConditionTrue, ReasonPlaintextHTTP}},
		"HTTPPrivateIP":     {"a private address is not loopback", "http://10.0.0.7", want{corev1.ConditionTrue, ReasonPlaintextHTTP}},
		"HTTPUpperCase":     {"the scheme is case-insensitive", "HTTP://coder.example.com", want{corev1.ConditionTrue, ReasonPlaintextHTTP}},
		"HTTPLoopbackV4":    {"loopback never leaves the host", "http://127.0.0.1:3000", want{corev1.ConditionFalse, ReasonLoopback}},
		"HTTPLoopbackRange": {"all of 127.0.0.0/8 is loopback", "http://127.8.9.10", want{corev1.ConditionFalse, ReasonLoopback}},
		"HTTPLoopbackV6":    {"::1 is loopback", "http://[::1]:3000", want{corev1.ConditionFalse, ReasonLoopback}},
		"HTTPLocalhost":     {"localhost is loopback", "http://LocalHost:3000", want{corev1.ConditionFalse, ReasonLoopback}},
		"HTTPLocalhostLike": {"a name that merely starts with localhost is not", "http://localhost.example.com", want{corev1.ConditionTrue, ReasonPlaintextHTTP}},
		"HTTPLoopbackLike":  {"a name that looks like a loopback address is not one", "http://127.0.0.1.example.com", want{corev1.ConditionTrue, ReasonPlaintextHTTP}},
		"Unparsable":        {"a bad URL is Ready's business", "http://%zz", want{corev1.ConditionFalse, ReasonTLS}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := transportCondition(tc.url)
			if diff := cmp.Diff(tc.want, want{c.Status, c.Reason}); diff != "" {
				t.Errorf("%s\ntransportCondition(%q): -want, +got:\n%s", tc.reason, tc.url, diff)
			}
			if c.Type != TypeInsecureTransport {
				t.Errorf("type %q, want %q", c.Type, TypeInsecureTransport)
			}
			if (c.Status == corev1.ConditionTrue) != (c.Message != "") {
				t.Errorf("a warning needs a message and only a warning has one; got %q", c.Message)
			}
		})
	}
}
