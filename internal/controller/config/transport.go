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
	"net"
	"net/url"
	"strings"

	corev1 "k8s.io/api/core/v1"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
)

// TypeInsecureTransport is a ProviderConfig condition that is True when the
// session token travels to Coder in clear text. It is a warning beside Ready,
// not a reason of Ready: the ProviderConfig works, and a platform team may
// accept plain http inside a cluster, but it should say so out loud.
const TypeInsecureTransport xpv2.ConditionType = "InsecureTransport"

// Reasons of the InsecureTransport condition.
const (
	// ReasonPlaintextHTTP: spec.url is http:// to a host that is not
	// loopback, so the token and every key Coder returns cross the network
	// unencrypted.
	ReasonPlaintextHTTP xpv2.ConditionReason = "PlaintextHTTP"
	// ReasonTLS: spec.url is https://.
	ReasonTLS xpv2.ConditionReason = "TLS"
	// ReasonLoopback: spec.url is http:// to this host (127.0.0.0/8, ::1,
	// localhost), where nothing crosses a network.
	ReasonLoopback xpv2.ConditionReason = "Loopback"
)

const msgPlaintextHTTP = "spec.url is http://: the Coder session token and the AI Gateway keys Coder returns travel in clear text; use https://"

// transportCondition says whether a ProviderConfig's URL sends the token in
// clear text. A URL that does not parse is left to the Ready condition.
func transportCondition(rawURL string) xpv2.Condition {
	c := xpv2.Condition{Type: TypeInsecureTransport, Status: corev1.ConditionFalse, Reason: ReasonTLS}
	u, err := url.Parse(rawURL)
	switch {
	case err != nil || !strings.EqualFold(u.Scheme, "http"):
		return c
	case isLoopback(u.Hostname()):
		c.Reason = ReasonLoopback
		return c
	}
	c.Status, c.Reason, c.Message = corev1.ConditionTrue, ReasonPlaintextHTTP, msgPlaintextHTTP
	return c
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
