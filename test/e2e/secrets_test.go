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

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/crossplane-contrib/provider-coder/apis"
	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
)

// TestNoSecretAppearsInLogsEventsOrStatus scans, once a key of its own is
// Ready, the provider's logs, every Event and the status of every object the
// provider writes for every secret Coder holds or ever issued. TestMain scans
// again after the last scenario (checkSecrets), so the order of the tests
// does not decide what is covered.
func TestNoSecretAppearsInLogsEventsOrStatus(t *testing.T) {
	ns := env.Namespace(t)
	env.ProviderConfig(t, ns)
	k := newKey(ns, "scan")
	env.Create(t, k)
	env.WaitCondition(t, k, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)

	leaks, scanned, err := secretLeaks(context.Background(), env)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range leaks {
		t.Error(l)
	}
	t.Log(scanned)
}

// checkSecrets fails the run when a secret appears in what every scenario
// left: the provider's whole log, the Events of the namespaces that remain,
// and every status.
func checkSecrets(e *testenv.Env, code int) int {
	leaks, scanned, err := secretLeaks(context.Background(), e)
	if err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: cannot scan for secrets after the scenarios: %v\n", err)
		return 1
	}
	if len(leaks) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: after the scenarios, %d secrets appear where none may:\n  %s\n", len(leaks), strings.Join(leaks, "\n  "))
		return 1
	}
	fmt.Printf("after the scenarios, %s\n", scanned)
	if changes != nil {
		fmt.Printf("the change log took %d entries, among the places scanned\n", changes.Len())
	}
	return code
}

// scannedSecrets are secrets scenarios made outside the fake Coder, by
// name: the tokens of the real Coder's users. secretLeaks looks for them
// too.
var scannedSecrets sync.Map

// secretLeaks says where a secret appears: the Coder session token, the
// plaintext of every key the fake Coder ever issued, the API keys of every
// AI provider, deleted ones included. Only the secret's name is said, never
// the secret.
func secretLeaks(ctx context.Context, e *testenv.Env) (leaks []string, scanned string, err error) {
	secrets := map[string]string{"the Coder session token": e.Coder.Token()}
	for i, key := range e.Coder.IssuedPlaintexts() {
		secrets[fmt.Sprintf("the plaintext of issued key %d", i)] = key
	}
	for _, p := range e.Coder.Providers(true) {
		for i, pk := range p.PlaintextKeys() {
			secrets[fmt.Sprintf("API key %d of provider %s", i, p.Name)] = pk
		}
	}
	for what, s := range mcpServerSecrets(e) {
		secrets[what] = s
	}
	if len(secrets) < 2 {
		return nil, "", fmt.Errorf("found %d secrets to look for, want the token and at least one key", len(secrets))
	}
	scannedSecrets.Range(func(name, secret any) bool {
		secrets[name.(string)] = secret.(string)
		return true
	})
	places := map[string]string{"the provider's logs": e.Logs.String()}
	if changes != nil {
		places["the change log"] = changes.Text()
	}
	events := &corev1.EventList{}
	if err := e.Kube.List(ctx, events); err != nil {
		return nil, "", fmt.Errorf("cannot list events: %w", err)
	}
	for _, ev := range events.Items {
		places["event "+ev.Namespace+"/"+ev.Name] = ev.Reason + " " + ev.Message
	}
	for _, l := range statusLists() {
		if err := e.Kube.List(ctx, l); err != nil {
			return nil, "", fmt.Errorf("cannot list %T: %w", l, err)
		}
		b, err := json.Marshal(l)
		if err != nil {
			return nil, "", err
		}
		places[fmt.Sprintf("every %T", l)] = string(b)
	}
	for what, s := range secrets {
		if len(s) < 8 {
			return nil, "", fmt.Errorf("%s is too short (%d) for a meaningful scan", what, len(s))
		}
		for where, text := range places {
			if strings.Contains(text, s) {
				leaks = append(leaks, what+" appears in "+where)
			}
		}
	}
	sort.Strings(leaks)
	return leaks, fmt.Sprintf("scanned %d places for %d secrets", len(places), len(secrets)), nil
}

// mcpServerSecrets are the secrets of every MCP server the fake and, when
// a scenario started it, the real Coder hold: OAuth2 client secrets, API
// key values and custom header values.
func mcpServerSecrets(e *testenv.Env) map[string]string {
	rows := e.Coder.MCPServers()
	if c, ok := testenv.StartedRealCoder(); ok {
		if r, ok := c.(interface {
			MCPServers() []fakecoder.MCPServerRow
		}); ok {
			rows = append(rows, r.MCPServers()...)
		}
	}
	out := map[string]string{}
	// The scenarios' own values, whose servers are gone by the end.
	for k, v := range mcpSecrets {
		out["the MCP scenarios' Secret value "+k] = v
	}
	for i, v := range mcpRotated {
		out[fmt.Sprintf("the MCP scenarios' rotated value %d", i)] = v
	}
	for _, r := range rows {
		for what, v := range map[string]string{"OAuth2 client secret": r.OAuth2ClientSecret, "API key value": r.APIKeyValue} {
			if v != "" {
				out[what+" of MCP server "+r.Slug] = v
			}
		}
		for name, v := range r.CustomHeaders {
			out["custom header "+name+" of MCP server "+r.Slug] = v
		}
	}
	return out
}

// statusLists are the lists of every kind whose status the provider writes.
func statusLists() []client.ObjectList {
	var out []client.ObjectList
	for _, k := range apis.ManagedKinds() {
		out = append(out, k.NewList())
	}
	for _, gk := range providerconfig.Kinds() {
		l, _ := providerconfig.NewList(gk)
		out = append(out, l)
	}
	return out
}
