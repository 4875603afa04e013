package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/crossplane-contrib/provider-coder/apis"
	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
)

// TestNoSecretAppearsInLogsEventsOrStatus runs last (file order) so that it
// also scans what every earlier scenario left: the provider's logs, every
// Event, and the status of every object the provider writes.
func TestNoSecretAppearsInLogsEventsOrStatus(t *testing.T) {
	ns := env.Namespace(t)
	env.ProviderConfig(t, ns)
	k := newKey(ns, "scan")
	env.Create(t, k)
	env.WaitCondition(t, k, xpv2.TypeReady, corev1.ConditionTrue, waitLong)

	secrets := map[string]string{"the Coder session token": env.Coder.Token()}
	for _, row := range env.Coder.Keys() {
		secrets["the plaintext of key "+row.Name] = row.Key
	}
	for _, p := range env.Coder.Providers(true) {
		for i, pk := range p.PlaintextKeys() {
			secrets[fmt.Sprintf("API key %d of provider %s", i, p.Name)] = pk
		}
	}
	if len(secrets) < 2 {
		t.Fatalf("found %d secrets to look for, want the token and at least one key", len(secrets))
	}

	places := map[string]string{"the provider's logs": env.Logs.String()}
	for _, e := range env.Events(t) {
		places["event "+e.Namespace+"/"+e.Name] = e.Reason + " " + e.Message
	}
	for _, l := range statusLists() {
		if err := env.Kube.List(context.Background(), l); err != nil {
			t.Fatalf("cannot list %T: %v", l, err)
		}
		b, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		places[fmt.Sprintf("every %T", l)] = string(b)
	}
	for what, s := range secrets {
		if len(s) < 8 {
			t.Fatalf("%s is too short (%d) for a meaningful scan", what, len(s))
		}
		for where, text := range places {
			if strings.Contains(text, s) {
				t.Errorf("%s appears in %s", what, where)
			}
		}
	}
	t.Logf("scanned %d places for %d secrets", len(places), len(secrets))
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
