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
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	common "github.com/crossplane-contrib/provider-coder/apis/common/v1alpha1"
	namespacedv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/controller/aigatewaykey"
	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
	"github.com/crossplane-contrib/provider-coder/test/framework/realcoder"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// On a Coder without the AI Gateway licence (Coder as it ships), a key is
// refused with Coder's real 403. The ProviderConfig says so before the
// first key; the key says what to do, creates nothing and leaves no
// cleanup record; and its namespace deletes at once, without a hold and
// without a release counted, because nothing was ever created in Coder.
func TestKeyOnAnUnlicensedCoderCreatesNothingAndNeverHoldsItsNamespace(t *testing.T) {
	onBothCoders(t, func(t *testing.T, c testenv.Coder) {
		if c.ServesKeys() {
			if testenv.IsReal(c) {
				t.Skip("skipping on the real Coder: it runs with the licence " + realcoder.EnvLicenseFile + " names; the fake covers the unlicensed answer")
			}
			env.Coder.SetLicensed(false)
			t.Cleanup(func() { env.Coder.SetLicensed(true) })
		}
		ns := env.Namespace(t)
		// Production deletion bounds: a key that held its ProviderConfig
		// would keep the namespace for dependentTimeout (10 minutes).
		pc := env.ReadyProviderConfigOf(t, ns, c, ownKeyList(c))
		gw := env.WaitCondition(t, pc, providerconfig.TypeAIGateway, corev1.ConditionFalse, testenv.WaitLong)
		if gw.Reason != providerconfig.ReasonAIGatewayNotEntitled || !strings.Contains(gw.Message, "licence") {
			t.Errorf("ProviderConfig AIGateway = %s %q, want NotEntitled naming the licence", gw.Reason, gw.Message)
		}

		// The command the troubleshooting guide gives, where kubectl is
		// local (not on kind).
		if env.ControlPlane != nil {
			if out := runDocCommand(t, "troubleshooting.md", "### 403: not licensed for AI Gateway", ns); !strings.HasPrefix(out, "NotEntitled: ") {
				t.Errorf("the troubleshooting command printed %q, want the AIGateway reason and message", out)
			}
		}

		k := newKey(ns, "gateway")
		env.Create(t, k)
		synced := env.WaitCondition(t, k, xpv2.TypeSynced, corev1.ConditionFalse, testenv.WaitLong)
		for _, want := range []string{"403", "licence", "CODER_AI_GATEWAY_ENABLED"} {
			if !strings.Contains(synced.Message, want) {
				t.Errorf("Synced message %q does not say %q", synced.Message, want)
			}
		}
		name := aigatewaykey.DerivedName(k)
		if n := len(testenv.KeysNamed(c, name)); n != 0 {
			t.Errorf("Coder holds %d keys named %q, want none", n, name)
		}
		if r := recordOf(t, "AIGatewayKey", k.UID); r != nil {
			t.Errorf("a cleanup record %s exists for a key Coder refused: %+v", r.Name, r.Status)
		}

		before := releasedWithoutDelete(t, "AIGatewayKey")
		start := time.Now()
		namespace := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}
		env.Delete(t, namespace)
		// Well inside dependentTimeout: any hold would show.
		env.WaitGone(t, namespace, time.Minute)
		t.Logf("namespace with a refused key deleted in %s", time.Since(start).Round(100*time.Millisecond))
		if d := releasedWithoutDelete(t, "AIGatewayKey") - before; d != 0 {
			t.Errorf("releases without delete = %v, want 0: nothing was created", d)
		}
		if r := recordOf(t, "AIGatewayKey", k.UID); r != nil {
			t.Errorf("the cleanup record %s outlived its key: %+v", r.Name, r.Status)
		}
	})
}

// runDocCommand runs the sh block of the section heading of docs/file as a
// user would, with kubectl on PATH and the namespace team-a replaced by ns,
// and returns what it printed. It needs the local control plane.
func runDocCommand(t *testing.T, file, heading, ns string) string {
	t.Helper()
	block := docBlock(t, file, heading, "sh")
	kubectl := env.ControlPlane.Kubectl()
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", strings.ReplaceAll(block, "team-a", ns))
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(kubectl.Path)+":"+os.Getenv("PATH"), "KUBECONFIG="+env.ControlPlane.KubeconfigPath)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the command of docs/%s %q failed: %v\n%s", file, heading, err, out)
	}
	return strings.TrimSpace(string(out))
}

// A key that got its finalizer but whose create was refused before it was
// sent (its ProviderConfig was being deleted) has nothing in Coder: its
// records say so. When Coder then refuses every call (the licence gone),
// deleting the key finishes at once instead of waiting on Coder's 403.
func TestDeletingAKeyWhoseCreateWasNeverSentNeedsNoAnswerFromCoder(t *testing.T) {
	ns := env.Namespace(t)
	// The ProviderConfig holds for its live key while the scenario runs.
	pc := env.ReadyProviderConfigOf(t, ns, env.Cluster.Coder(t), func(pc *namespacedv1alpha1.ProviderConfig) {
		pc.Spec.Deletion = &common.DeletionSpec{LiveDependentTimeout: &metav1.Duration{Duration: 5 * time.Minute}}
	})
	live := newKey(ns, "live")
	env.Create(t, live)
	env.WaitCondition(t, live, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	// The ProviderConfig holds for its live key and takes no new objects
	// meanwhile.
	env.Delete(t, pc)
	// The provider has seen the deletion (its hold is in the status) before
	// the key is made: a create it decides from a cache that has not is
	// rightly sent.
	testenv.Eventually(t, testenv.WaitLong, "the ProviderConfig's hold", func() (bool, string) {
		env.Get(t, pc)
		return pc.Status.Hold != nil, "no status.hold"
	})
	k := newKey(ns, "refused")
	env.Create(t, k)
	c := env.WaitCondition(t, k, xpv2.TypeSynced, corev1.ConditionFalse, testenv.WaitLong)
	if !strings.Contains(c.Message, "being deleted") {
		t.Fatalf("Synced message %q, want the create refused for the ProviderConfig being deleted", c.Message)
	}
	if r := recordOf(t, "AIGatewayKey", k.UID); r != nil {
		t.Fatalf("a create refused before it was sent left a cleanup record: %+v", r.Status)
	}
	lists := env.Coder.Requests(fakecoder.EndpointKeysList)
	env.Coder.SetLicensed(false)
	t.Cleanup(func() { env.Coder.SetLicensed(true) })
	// The provider shares one key list per ProviderConfig for KeyListTTL;
	// once a list reaches Coder after the licence went, it met the 403 and
	// the next Observe asks Coder again.
	testenv.Eventually(t, testenv.WaitLong, "a key list to reach Coder without its licence", func() (bool, string) {
		n := env.Coder.Requests(fakecoder.EndpointKeysList)
		return n > lists, fmt.Sprintf("%d lists", n-lists)
	})

	start := time.Now()
	env.Delete(t, k)
	env.WaitGone(t, k, 10*time.Second)
	t.Logf("the refused key went %s after its delete, with Coder answering 403", time.Since(start).Round(100*time.Millisecond))
	env.Coder.SetLicensed(true)
	env.Delete(t, live)
	env.WaitGone(t, live, testenv.WaitLong)
	env.WaitGone(t, pc, testenv.WaitLong)
}

// ownKeyList gives a ProviderConfig of the fake Coder a key list no other
// scenario shares: the same server by another host name, another scope. A
// list another scenario cached through the fake's token before its
// licence went would otherwise serve this key's first look for the key
// list's TTL, not Coder's 403, and send a create Coder refuses, leaving
// its cleanup record. Nil for the real Coder.
func ownKeyList(c testenv.Coder) func(*namespacedv1alpha1.ProviderConfig) {
	if testenv.IsReal(c) {
		return nil
	}
	return func(pc *namespacedv1alpha1.ProviderConfig) {
		pc.Spec.URL = strings.Replace(pc.Spec.URL, "127.0.0.1", "localhost", 1)
	}
}
