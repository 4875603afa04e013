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

package providerconfig

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

func TestClientConfigReadsTheTokenWithoutTheNewlineAFileEndsWith(t *testing.T) {
	cases := map[string]struct {
		reason  string
		data    string
		want    string
		wantErr string
	}{
		"Token":        {reason: "A token as coder tokens create prints it, without its newline.", data: "abcdefghij-0123456789abcdefghijkl", want: "abcdefghij-0123456789abcdefghijkl"},
		"FromFile":     {reason: "kubectl create secret --from-file keeps the newline coder printed.", data: "abcdefghij-0123456789abcdefghijkl\n", want: "abcdefghij-0123456789abcdefghijkl"},
		"WindowsFile":  {reason: "A file saved on Windows ends with CR LF.", data: " abcdefghij-0123456789abcdefghijkl\r\n", want: "abcdefghij-0123456789abcdefghijkl"},
		"OnlyNewline":  {reason: "A Secret of white space holds no token.", data: "\n", wantErr: errEmptyToken},
		"EmptySecrets": {reason: "An empty value holds no token.", data: "", wantErr: errEmptyToken},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "platform", Name: "coder-token"}, Data: map[string][]byte{"token": []byte(tc.data)}}
			kube := fake.NewClientBuilder().WithObjects(s).Build()
			ref := SecretKeyRef{Namespace: "platform", Name: "coder-token", Key: "token"}
			cfg, err := ClientConfig(context.Background(), kube, Connection{URL: "https://coder.example.com", Token: &ref}, time.Second)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("%s\nClientConfig error = %v, want %q", tc.reason, err, tc.wantErr)
				}
				return
			}
			if err != nil || cfg.Token != tc.want {
				t.Errorf("%s\nClientConfig token = %q, %v; want %q", tc.reason, cfg.Token, err, tc.want)
			}
		})
	}
}
