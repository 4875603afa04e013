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
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/coder/v2/codersdk"
	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	aiv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/ai/v1alpha1"
	namespacedv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/namespaced/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
	"github.com/crossplane-contrib/provider-coder/test/framework/realcoder"
	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

const leastPrivilegePage = "how-to/least-privilege.md"

// What the User Admin's token lacks, as the CoderPermissions condition
// says it (providerconfig.CoderPermissionsCondition).
const userAdminLacks = "the token's user lacks Coder permissions: " +
	"AIProvider needs ai_provider:read, ai_provider:create, ai_provider:update, ai_provider:delete (Coder's Owner role); " +
	"AIGatewayKey needs ai_gateway_key:read, ai_gateway_key:create, ai_gateway_key:delete (Coder's Owner role); " +
	"MCPServer needs deployment_config:read, deployment_config:update (Coder's Owner role); " +
	"Coder refuses (403) these kinds through this ProviderConfig; it may manage GroupAIBudget, UserAIBudgetOverride"

// A guide is docs/how-to/least-privilege.md as it runs on one Coder: its
// blocks with the page's names replaced by this run's.
type guide struct {
	t       *testing.T
	coder   testenv.Coder
	sh      []string // the environment of its shell blocks
	replace *strings.Replacer
}

// newGuide runs the page's blocks against the real Coder c as its Owner,
// with the coder CLI of the real server's binary and the platform's
// namespace platform.
func newGuide(t *testing.T, c testenv.Coder, platform, suffix string) *guide {
	t.Helper()
	bin, err := realcoder.Binary()
	if err != nil {
		t.Skipf("skipping: no coder binary: %v", err)
	}
	dir := t.TempDir()
	if err := os.Symlink(bin, filepath.Join(dir, "coder")); err != nil {
		t.Fatal(err)
	}
	kubectl := env.ControlPlane.Kubectl()
	return &guide{t: t, coder: c,
		sh: append(os.Environ(),
			"PATH="+dir+":"+filepath.Dir(kubectl.Path)+":"+os.Getenv("PATH"),
			"KUBECONFIG="+env.ControlPlane.KubeconfigPath,
			"HOME="+t.TempDir(),
			"CODER_URL="+c.URL(), "CODER_SESSION_TOKEN="+c.Token()),
		replace: strings.NewReplacer(
			"crossplane-system", platform,
			"crossplane-budgets", "crossplane-budgets-"+suffix,
			"coder-budgets", "coder-budgets-"+suffix,
			"https://coder.example.com", c.URL(),
		),
	}
}

// run runs the sh block of the section heading, with more replaced, and
// returns what it printed. The output never holds a token: the page pipes
// it from coder into kubectl.
func (g *guide) run(heading string, more ...string) string {
	g.t.Helper()
	block := strings.NewReplacer(more...).Replace(g.replace.Replace(docBlock(g.t, leastPrivilegePage, heading, "sh")))
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", block)
	cmd.Env = g.sh
	out, err := cmd.CombinedOutput()
	if err != nil {
		g.t.Fatalf("the commands of %q fail: %v\n%s\n%s", heading, err, block, out)
	}
	for _, secret := range []string{g.coder.Token()} {
		if strings.Contains(string(out), secret) {
			g.t.Fatalf("the commands of %q printed a token", heading)
		}
	}
	return string(out)
}

// yaml is the YAML block of the section heading, with more replaced.
func (g *guide) yaml(heading string, more ...string) []*unstructured.Unstructured {
	g.t.Helper()
	block := strings.NewReplacer(more...).Replace(g.replace.Replace(docBlock(g.t, leastPrivilegePage, heading, "yaml")))
	var out []*unstructured.Unstructured
	for _, y := range strings.Split(block, "\n---\n") {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(y), &u.Object); err != nil {
			g.t.Fatalf("the YAML of %q does not parse: %v", heading, err)
		}
		out = append(out, u)
	}
	return out
}

// token is the token a Secret holds; the scan after the scenarios looks
// for it everywhere a secret may not be, and so does this for out, what
// the command that made it printed.
func token(t *testing.T, ns, name, out string) string {
	t.Helper()
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	if !env.Get(t, s) {
		t.Fatalf("no Secret %s/%s", ns, name)
	}
	tok := string(s.Data["token"])
	scannedSecrets.Store("the token in "+ns+"/"+name+" at "+time.Now().Format(time.RFC3339Nano), tok)
	if tok == "" || strings.Contains(out, tok) {
		t.Fatalf("the token in %s/%s is empty, or the command that made it printed it", ns, name)
	}
	return tok
}

// On the real, unlicensed Coder v2.36, the page's steps run as written:
// a user that never logs in with only the User Admin role, and a token of
// bounded lifetime in the platform's namespace, make a
// ClusterProviderConfig that is Ready and names what AI providers and keys
// need; an AIProvider through it is refused with the permission and
// creates nothing. The same steps with the Owner role manage an AIProvider
// end to end. A token rotated into the Secret takes effect without a
// restart, in both directions: a delete Coder refuses for a User Admin's
// token waits naming the permission, and finishes once an Owner's new token
// is in place, the old one deleted in Coder. The budget kinds need a
// licence on the real Coder; TestUserAdminTokenManagesBudgetsOnTheFake
// shows them.
func TestLeastPrivilegeGuideRunsOnTheRealCoder(t *testing.T) {
	if env.ControlPlane == nil {
		t.Skip("skipping: the page's commands need kubectl on the local control plane")
	}
	c := env.Cluster.RealCoder(t)
	platform, ns := env.Namespace(t), env.Namespace(t)
	suffix := uuid.NewString()[:6]
	g := newGuide(t, c, platform, suffix)

	// Coder v2.36 refuses a user that cannot log in without a licence:
	// the page says so, and makes one nobody knows the password of.
	org, err := c.SDK(t).OrganizationByName(context.Background(), codersdk.DefaultOrganization)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.SDK(t).CreateUserWithOrgs(context.Background(), codersdk.CreateUserRequestWithOrgs{
		Email: "none-" + suffix + "@coder.test", Username: "none-" + suffix, UserLoginType: codersdk.LoginTypeNone, //nolint:staticcheck // The deprecated login type is what the page says Coder refuses.
		OrganizationIDs: []uuid.UUID{org.ID},
	})
	if err == nil || !strings.Contains(err.Error(), "requires a service account") {
		t.Errorf("creating a user with login type none on the unlicensed Coder: %v, want 400 requires a service account", err)
	}

	// The User Admin, as the page makes it.
	g.run("## Create the user")
	budgetsToken := token(t, platform, "coder-budgets-"+suffix+"-token", g.run("## Create its token, into the platform's namespace"))
	budgets := "crossplane-budgets-" + suffix
	me := userNamed(t, c, budgets)
	if len(me.Roles) != 1 || me.Roles[0].Name != codersdk.RoleUserAdmin {
		t.Errorf("%s has roles %v, want only user-admin", budgets, me.Roles)
	}
	cpc := g.yaml("## Use it through a ClusterProviderConfig")[0]
	env.Create(t, cpc)
	t.Cleanup(func() { env.Delete(t, cpc) })
	pc := &namespacedv1alpha1.ClusterProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: cpc.GetName()}}
	env.WaitCondition(t, pc, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	perms := env.WaitCondition(t, pc, providerconfig.TypeCoderPermissions, corev1.ConditionFalse, testenv.WaitLong)
	if perms.Reason != providerconfig.ReasonCoderPermissionsMissing || perms.Message != userAdminLacks {
		t.Errorf("CoderPermissions = %s %q, want %s %q", perms.Reason, perms.Message, providerconfig.ReasonCoderPermissionsMissing, userAdminLacks)
	}
	tok := env.WaitCondition(t, pc, providerconfig.TypeToken, corev1.ConditionTrue, testenv.WaitLong)
	if tok.Reason != providerconfig.ReasonTokenValid {
		t.Errorf("Token = %s %q, want Valid: an API token of 720h", tok.Reason, tok.Message)
	}
	if out := g.run("## Use it through a ClusterProviderConfig"); !strings.Contains(out, "CoderPermissions: MissingCoderPermissions: "+userAdminLacks) {
		t.Errorf("the page's kubectl get printed\n%s\nwant the CoderPermissions line it shows", out)
	}

	refused := newAIProvider(ns, "refused", "openai", "https://api.openai.com/v1")
	refused.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: namespacedv1alpha1.ClusterProviderConfigKind, Name: cpc.GetName()}
	env.Create(t, refused)
	synced := env.WaitCondition(t, refused, xpv2.TypeSynced, corev1.ConditionFalse, testenv.WaitLong)
	if !strings.Contains(synced.Message, "403 Forbidden: the token's user lacks the Coder permission ai_provider:") || !strings.Contains(synced.Message, "Coder's Owner role has it") {
		t.Errorf("the refused AIProvider's Synced message %q does not name ai_provider and the Owner role", synced.Message)
	}
	if n := len(providersNamed(c, *refused.Spec.ForProvider.Name)); n != 0 {
		t.Errorf("Coder holds %d providers named %s, want none", n, *refused.Spec.ForProvider.Name)
	}
	env.Delete(t, refused)
	env.WaitGone(t, refused, testenv.WaitLong)
	if r := recordOf(t, "AIProvider", refused.UID); r != nil {
		t.Errorf("the refused AIProvider left the cleanup record %s: %+v", r.Name, r.Status)
	}

	// The Owner, as the page makes it with the other role.
	owner := map[string]string{"crossplane-budgets-" + suffix: "crossplane-providers-" + suffix, "--roles user-admin": "--roles owner", "--lifetime 720h": "--lifetime 168h",
		"coder-budgets-" + suffix: "coder-providers-" + suffix}
	pairs := func(m map[string]string) []string {
		var out []string
		for k, v := range m {
			out = append(out, k, v)
		}
		return out
	}
	ownerSecret := "coder-providers-" + suffix + "-token"
	g.run("## Create the user", pairs(owner)...)
	firstOwnerToken := token(t, platform, ownerSecret, g.run("## Create its token, into the platform's namespace", pairs(owner)...))
	ownerCPC := g.yaml("## Use it through a ClusterProviderConfig", pairs(owner)...)[0]
	env.Create(t, ownerCPC)
	t.Cleanup(func() { env.Delete(t, ownerCPC) })
	opc := &namespacedv1alpha1.ClusterProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: ownerCPC.GetName()}}
	env.WaitCondition(t, opc, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	if p := env.WaitCondition(t, opc, providerconfig.TypeCoderPermissions, corev1.ConditionTrue, testenv.WaitLong); p.Reason != providerconfig.ReasonCoderPermissionsGranted {
		t.Errorf("the Owner's CoderPermissions = %s %q, want AllKinds", p.Reason, p.Message)
	}
	p := newAIProvider(ns, "managed", "openai", "https://api.openai.com/v1")
	p.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: namespacedv1alpha1.ClusterProviderConfigKind, Name: ownerCPC.GetName()}
	env.Create(t, p)
	env.WaitCondition(t, p, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	if n := len(providersNamed(c, *p.Spec.ForProvider.Name)); n != 1 {
		t.Fatalf("Coder holds %d providers named %s, want 1", n, *p.Spec.ForProvider.Name)
	}

	// The User Admin's token in the Owner's Secret: the ProviderConfig
	// follows without a restart, and the delete Coder refuses waits,
	// naming the permission.
	setToken(t, platform, ownerSecret, budgetsToken)
	testenv.Eventually(t, testenv.WaitLong, "the Owner's ProviderConfig to see the User Admin's token", func() (bool, string) {
		env.Get(t, opc)
		got := opc.GetCondition(providerconfig.TypeCoderPermissions)
		return got.Message == userAdminLacks, got.Message
	})
	env.Delete(t, p)
	testenv.Eventually(t, testenv.WaitLong, "the refused delete to name the permission", func() (bool, string) {
		env.Get(t, p)
		got := p.GetCondition(xpv2.TypeSynced)
		// The page shows this message.
		return strings.HasPrefix(got.Message, "observe failed: cannot read whether what the cleanup record aiprovider-"+string(p.GetUID())+" names is gone from Coder; "+
			"the resource goes only once it is: GET /api/v2/ai/providers/{idOrName}: 403 Forbidden: "+
			"the token's user lacks the Coder permission ai_provider:read (Coder's Owner role has it; see docs/how-to/least-privilege.md): Forbidden."), got.Message
	})
	if !env.Get(t, p) || len(providersNamed(c, *p.Spec.ForProvider.Name)) != 1 {
		t.Fatal("the AIProvider or its provider in Coder went while Coder refused the delete")
	}

	// The page's rotation, with the Owner: a new token, then the first
	// deleted in Coder; the delete goes through with the new one.
	if token(t, platform, ownerSecret, g.run("## Rotate the token", pairs(owner)...)) == budgetsToken {
		t.Fatal("the rotation left the User Admin's token in the Secret")
	}
	keyID, _, _ := strings.Cut(firstOwnerToken, "-")
	if err := c.SDK(t).DeleteAPIKey(context.Background(), "crossplane-providers-"+suffix, keyID); err != nil {
		t.Fatalf("cannot delete the first Owner token in Coder: %v", err)
	}
	env.WaitGone(t, p, testenv.WaitLong)
	if n := len(providersNamed(c, *p.Spec.ForProvider.Name)); n != 0 {
		t.Errorf("Coder still holds %d providers named %s after the delete", n, *p.Spec.ForProvider.Name)
	}
	env.WaitCondition(t, opc, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)

	checkTenantPolicy(t, g, c)
}

// checkTenantPolicy applies the page's admission policy with c as the
// platform's Coder: a namespaced ProviderConfig that names it is refused
// in a tenant namespace, however its URL spells the host, and admitted
// elsewhere; one that names another Coder is admitted everywhere.
func checkTenantPolicy(t *testing.T, g *guide, c testenv.Coder) {
	t.Helper()
	host := strings.TrimPrefix(strings.Split(c.URL(), ":")[1], "//")
	for _, o := range g.yaml("## Keep tenants from pointing a ProviderConfig at the platform's Coder", "'coder.example.com'", "'"+host+"'") {
		env.Create(t, o)
		t.Cleanup(func() { env.Delete(t, o) })
	}
	tenant, other := env.Namespace(t), env.Namespace(t)
	label := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: tenant}}
	if err := env.Update(t, label, func() { label.Labels = map[string]string{"coder.crossplane.io/tenant": "true"} }); err != nil {
		t.Fatal(err)
	}
	try := func(ns, url string) error {
		pc := testenv.ProviderConfigOf(ns, "pc-"+uuid.NewString()[:6], url, "coder-token")
		return env.Kube.Create(context.Background(), pc, client.DryRunAll)
	}
	platformURL := strings.Replace(c.URL(), "http://", "HTTP://", 1) + "/"
	testenv.Eventually(t, testenv.WaitLong, "the policy to refuse the platform's Coder in a tenant namespace", func() (bool, string) {
		err := try(tenant, platformURL)
		return kerrors.IsInvalid(err) && strings.Contains(err.Error(), "cannot point at the platform Coder ("+host+")"), fmt.Sprint(err)
	})
	for _, ok := range []struct{ ns, url string }{{other, c.URL()}, {tenant, "https://coder.team.example.com"}} {
		if err := try(ok.ns, ok.url); err != nil {
			t.Errorf("a ProviderConfig for %s in %s was refused: %v", ok.url, ok.ns, err)
		}
	}
}

// userNamed is the Coder user of that name, as the Owner reads it.
func userNamed(t *testing.T, c testenv.Coder, name string) codersdk.User {
	t.Helper()
	u, err := c.SDK(t).User(context.Background(), name)
	if err != nil {
		t.Fatalf("no Coder user %s: %v", name, err)
	}
	return u
}

// setToken puts token in the Secret, as a person rotating it would.
func setToken(t *testing.T, ns, name, token string) {
	t.Helper()
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	if err := env.Update(t, s, func() { s.Data = map[string][]byte{"token": []byte(token)} }); err != nil {
		t.Fatal(err)
	}
}

// A User Admin's token manages group budgets and user overrides end to
// end, on a fake Coder that is licensed (the real one is not, here) and
// whose user holds only that role; an AIProvider through it is refused
// with the permission it lacks, and its ProviderConfig says so first, as
// on the real Coder.
func TestUserAdminTokenManagesBudgetsOnTheFake(t *testing.T) {
	if !testenv.IsLocal(env.Cluster) {
		t.Skip("skipping: the scenario starts a fake Coder of its own in this process")
	}
	s := fakecoder.New(fakecoder.Options{Member: true, UserAdmin: true})
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	group := budgetGroup(t, s, "data-science", 1_000_000)
	user, err := s.CreateUser("alice-" + uuid.NewString()[:6])
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AddGroupMember(group.ID, user.ID); err != nil {
		t.Fatal(err)
	}
	ns := env.Namespace(t)
	pc := env.ReadyProviderConfigOf(t, ns, testenv.LocalCoder(s), nil)
	perms := env.WaitCondition(t, pc, providerconfig.TypeCoderPermissions, corev1.ConditionFalse, testenv.WaitLong)
	if perms.Message != userAdminLacks {
		t.Errorf("CoderPermissions message %q, want %q", perms.Message, userAdminLacks)
	}

	b := newGroupBudget(ns, "data-science", "data-science", 50_000_000)
	env.Create(t, b)
	env.WaitCondition(t, b, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)
	waitBudget(t, s, group.ID, 50_000_000, "the group's budget in Coder")
	o := &aiv1alpha1.UserAIBudgetOverride{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "alice"}}
	o.Spec.ProviderConfigReference = testenv.PCRef()
	o.Spec.ForProvider.User = user.ID.String()
	o.Spec.ForProvider.GroupName = &group.Name
	limit := int64(80_000_000)
	o.Spec.ForProvider.SpendLimitMicros = &limit
	env.Create(t, o)
	env.WaitCondition(t, o, xpv2.TypeReady, corev1.ConditionTrue, testenv.WaitLong)

	p := newAIProvider(ns, "refused", "openai", "https://api.openai.com/v1")
	env.Create(t, p)
	synced := env.WaitCondition(t, p, xpv2.TypeSynced, corev1.ConditionFalse, testenv.WaitLong)
	if !strings.Contains(synced.Message, "403 Forbidden: the token's user lacks the Coder permission ai_provider:create (Coder's Owner role has it") {
		t.Errorf("the AIProvider's Synced message %q does not name ai_provider:create and the Owner role", synced.Message)
	}
	if n := len(s.Providers(false)); n != 0 {
		t.Errorf("the fake holds %d providers, want none", n)
	}

	for _, mr := range []client.Object{o, b, p} {
		env.Delete(t, mr)
	}
	for _, mr := range []client.Object{o, b, p} {
		env.WaitGone(t, mr, testenv.WaitLong)
	}
	if _, ok := budgetLimit(s, group.ID); ok {
		t.Error("the group's budget is still in Coder after its resource was deleted")
	}
	if n := len(s.BudgetOverrides()); n != 0 {
		t.Errorf("the fake holds %d overrides after the override was deleted", n)
	}
}
