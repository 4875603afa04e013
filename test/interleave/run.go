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

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/coder/coder/v2/codersdk"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/crossplane-contrib/provider-coder/internal/controller/aigatewaykey"
	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
	"github.com/crossplane-contrib/provider-coder/test/framework/testenv"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// Coder is the Coder a run drives: test/e2e's view of the fake or the real
// server.
type Coder = testenv.Coder

// A Result is how one run ended.
type Result struct {
	Seed       uint64
	Flavour    Flavour
	Ops        int
	Kills      int
	Violations []string
	// Log is the operation log: each operation with what it saw.
	Log      []string
	Duration time.Duration
	// Releases counted by the provider, and expected from the records.
	Counted, Expected int
}

// run is one plan's execution.
type run struct {
	bed   *Bed
	plan  Plan
	coder Coder
	sdk   *codersdk.Client
	kube  client.WithWatch
	start time.Time

	mu           sync.Mutex
	log          []string
	incarnations []Incarnation
	imported     map[string]int
	importIDs    map[int]string
	stripped     map[types.UID]bool
	// secrets are every secret the run handed out or saw in Coder.
	secrets map[string]bool
	// before are the Coder objects that existed before the run.
	before map[string]bool
	// peaks is the most keys each incarnation had in Coder at once.
	peaks      map[types.UID]int
	violations []string

	// The provider's release counter, summed over its processes.
	counted, base float64
	kills         []time.Time
	watch         *watcher
	// down: the run stopped Coder and has not started it again.
	down bool
	// repointed is when each ProviderConfig's URL was last patched, by
	// index in the world.
	repointed map[int]time.Time
}

// Run executes plan against the bed and the Coder and checks the
// invariants once the world is quiet.
func Run(ctx context.Context, bed *Bed, c Coder, sdk *codersdk.Client, plan Plan) (res Result) {
	r := &run{
		bed: bed, plan: plan, coder: c, sdk: sdk, kube: bed.Kube, start: time.Now(),
		imported: map[string]int{}, importIDs: map[int]string{}, stripped: map[types.UID]bool{},
		secrets: map[string]bool{c.Token(): true}, before: map[string]bool{}, peaks: map[types.UID]int{},
		repointed: map[int]time.Time{},
	}
	res = Result{Seed: plan.Seed, Flavour: plan.Flavour, Ops: len(plan.Ops)}
	defer func() {
		res.Duration = time.Since(r.start)
		res.Log = r.log
		res.Violations = r.violations
		res.Kills = len(r.kills)
	}()
	// A seed replays alone as it ran in a soak: the ids an earlier run's
	// other-mimics left unused would make the other Coder answer this
	// run's creates with ids of the run's Coder (how seed 540571992116
	// failed in a soak and not alone).
	bed.Other.StopMimicking()
	for _, k := range c.Keys() {
		r.before[k.ID.String()] = true
	}
	for _, p := range c.Providers(false) {
		r.before[p.ID.String()] = true
	}
	for _, s := range mcpServers(c) {
		r.before[s.ID.String()] = true
	}
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	r.watch = startWatcher(wctx, r.kube, plan.World)
	if err := r.ensureProvider(ctx); err != nil {
		r.violate("setup: %v", err)
		return res
	}
	// The process may have counted releases of earlier runs (their
	// teardowns): only what it counts from now on is this run's.
	if err := r.collectCounter(ctx); err != nil {
		r.violate("setup: cannot read the provider's metrics: %v", err)
		return res
	}
	r.counted = 0
	if plan.ClockOffset != 0 {
		if err := c.SetClockOffset(plan.ClockOffset); err != nil {
			r.violate("setup: cannot set Coder's clock: %v", err)
			return res
		}
		// The fake serves every run of the bed.
		defer func() { _ = c.SetClockOffset(0) }()
		r.logf("Coder's clock runs %s from the cluster's", plan.ClockOffset)
	}
	if err := r.setup(ctx); err != nil {
		r.violate("setup: %v", err)
		return res
	}
	for i, op := range plan.Ops {
		select {
		case <-ctx.Done():
			r.violate("the run's time is up at operation %d", i)
			return res
		case <-time.After(op.Pause):
		}
		out := r.do(ctx, op)
		r.logf("%2d %s: %s", i, plan.Describe(op), out)
		r.sample(ctx, fmt.Sprintf("after operation %d", i))
	}
	r.quiet(ctx)
	res.Counted, res.Expected = r.check(ctx)
	r.teardown(ctx)
	return res
}

func (r *run) logf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.log = append(r.log, fmt.Sprintf("%6.1fs ", time.Since(r.start).Seconds())+fmt.Sprintf(format, args...))
}

func (r *run) violate(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.violations = append(r.violations, fmt.Sprintf(format, args...))
}

func randomSecret(prefix string) string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// setup creates the world: namespaces, Secrets, ProviderConfigs, the
// imported object in Coder and the initial resources.
func (r *run) setup(ctx context.Context) error {
	w := r.plan.World
	for _, ns := range append([]string{w.System}, w.Namespaces...) {
		if err := r.kube.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			return err
		}
	}
	for _, s := range w.Secrets {
		if err := r.kube.Create(ctx, secretObject(s, tokenKey, r.coder.Token())); err != nil {
			return err
		}
	}
	for _, m := range w.MRs {
		if m.Kind == Key {
			continue
		}
		v := randomSecret("sk-test-")
		r.secrets[v] = true
		if err := r.kube.Create(ctx, secretObject(apiKeySecret(m, w.System), apiKeyKey, v)); err != nil {
			return err
		}
	}
	for _, pc := range w.PCs {
		if err := r.kube.Create(ctx, w.pcObject(pc, r.coder.URL(), w.Secrets[pc.Secret].Name)); err != nil {
			return err
		}
	}
	for i, m := range w.MRs {
		if !m.Import {
			continue
		}
		resp, err := r.sdk.CreateAIGatewayKey(ctx, codersdk.CreateAIGatewayKeyRequest{Name: w.Prefix + "-import"})
		if err != nil {
			return fmt.Errorf("cannot create the key to import: %w", err)
		}
		r.secrets[resp.Key] = true
		r.imported[resp.ID.String()] = i
		r.importIDs[i] = resp.ID.String()
	}
	for i, m := range w.MRs {
		if m.Initial {
			if out := r.create(ctx, i); !strings.HasPrefix(out, "created") {
				return fmt.Errorf("cannot create %s: %s", m.Name, out)
			}
		}
	}
	r.logf("setup: %d namespaces, %d ProviderConfigs, %d resources (%d at start)", len(w.Namespaces)+1, len(w.PCs), len(w.MRs), len(r.incarnations))
	return nil
}

// create creates resource i anew.
func (r *run) create(ctx context.Context, i int) string {
	m := r.plan.World.MRs[i]
	o := r.plan.World.mrObject(m, r.importIDs[i])
	if err := r.kube.Create(ctx, o); err != nil {
		return "refused: " + reason(err)
	}
	r.mu.Lock()
	r.incarnations = append(r.incarnations, Incarnation{MR: i, UID: o.GetUID()})
	r.mu.Unlock()
	return "created uid " + string(o.GetUID())
}

// reason is an API error's reason, short.
func reason(err error) string {
	if s := kerrors.ReasonForError(err); s != metav1.StatusReasonUnknown {
		return string(s)
	}
	return err.Error()
}

// ensureProvider starts a provider process when none runs.
func (r *run) ensureProvider(ctx context.Context) error {
	p := r.bed.Provider
	if p.Running() {
		return nil
	}
	if err := p.Start(ctx); err != nil {
		return err
	}
	r.base = 0
	return nil
}

// collectCounter adds what the running provider counted since base.
func (r *run) collectCounter(ctx context.Context) error {
	s, err := r.bed.Provider.Scrape(ctx)
	if err != nil {
		return err
	}
	v := s.Sum("provider_coder_cleanup_released_without_delete_total")
	r.counted += v - r.base
	r.base = v
	r.watch.text("metrics", s.Text)
	return nil
}

// sample checks what must hold at every moment: no more than two keys per
// resource, and no Ready key without its plaintext in its Secret.
func (r *run) sample(ctx context.Context, when string) {
	rows := r.keyRows()
	o := r.ownership(ctx)
	for uid, n := range KeysPerIncarnation(rows, o) {
		r.mu.Lock()
		r.peaks[uid] = max(r.peaks[uid], n)
		r.mu.Unlock()
	}
	for _, v := range ReadyWithoutPlaintext(r.published(ctx)) {
		r.violate("%s: %s", when, v)
	}
}

// keyRows reads Coder's keys that appeared during the run, and remembers
// their plaintexts (the fake knows them) as secrets.
func (r *run) keyRows() []Row {
	var rows []Row
	for _, k := range r.coder.Keys() {
		if k.Key != "" {
			r.mu.Lock()
			r.secrets[k.Key] = true
			r.mu.Unlock()
		}
		if !r.before[k.ID.String()] {
			rows = append(rows, Row{Kind: Key, ID: k.ID.String(), Name: k.Name})
		}
	}
	return rows
}

func (r *run) providerRows() []Row {
	var rows []Row
	for _, p := range r.coder.Providers(false) {
		if !r.before[p.ID.String()] {
			rows = append(rows, Row{Kind: Provider, ID: p.ID.String(), Name: p.Name})
		}
	}
	return rows
}

// mcpRows are the MCP servers that appeared during the run; their API
// keys are secrets the run looks for.
func (r *run) mcpRows() []Row {
	var rows []Row
	for _, s := range mcpServers(r.coder) {
		if s.APIKeyValue != "" {
			r.mu.Lock()
			r.secrets[s.APIKeyValue] = true
			r.mu.Unlock()
		}
		if !r.before[s.ID.String()] {
			rows = append(rows, Row{Kind: MCP, ID: s.ID.String(), Name: s.Slug})
		}
	}
	return rows
}

// mcpServers are the MCP servers in c's store: the fake's, or the real
// Coder's database.
func mcpServers(c Coder) []fakecoder.MCPServerRow {
	if s, ok := c.(interface {
		MCPServers() []fakecoder.MCPServerRow
	}); ok {
		return s.MCPServers()
	}
	return nil
}

// rows are every object of the world's kinds that appeared during the run.
func (r *run) rows() []Row {
	return append(append(r.keyRows(), r.providerRows()...), r.mcpRows()...)
}

// ownership reads which incarnation of each resource lives now.
func (r *run) ownership(ctx context.Context) Ownership {
	w := r.plan.World
	o := Ownership{World: w, Live: map[int]types.UID{}, Imported: r.imported, Adopted: map[string]bool{}}
	for id := range r.imported {
		o.Adopted[id] = r.watch.wasRecorded(id)
	}
	r.mu.Lock()
	o.Incarnations = append([]Incarnation(nil), r.incarnations...)
	r.mu.Unlock()
	for i, m := range w.MRs {
		obj := mrKey(m)
		if err := r.kube.Get(ctx, client.ObjectKeyFromObject(obj), obj); err == nil {
			o.Live[i] = obj.GetUID()
		}
	}
	return o
}

// published reads every Ready key resource (not an import, not being
// deleted, in a namespace that is not) with its Secret's plaintext, judged
// by the Coder its ProviderConfig points at (reaching).
func (r *run) published(ctx context.Context) []Published {
	w := r.plan.World
	var out []Published
	for _, m := range w.MRs {
		if m.Kind != Key || m.Import {
			continue
		}
		obj := mrKey(m)
		if err := r.kube.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil || obj.GetDeletionTimestamp() != nil {
			continue
		}
		if !isReady(obj) || r.namespaceDeleting(ctx, m.Namespace) {
			continue
		}
		valid, ok := r.reaching(ctx, m)
		if !ok {
			continue
		}
		p := Published{Name: objName(m.Namespace, m.Name)}
		cs := connSecret(m, w.System)
		s := &corev1.Secret{}
		if err := r.kube.Get(ctx, types.NamespacedName{Namespace: cs.Namespace, Name: cs.Name}, s); err == nil {
			p.Plaintext = string(s.Data[aigatewaykey.ConnectionKey])
		}
		if p.Plaintext != "" {
			r.mu.Lock()
			r.secrets[p.Plaintext] = true
			r.mu.Unlock()
			p.Valid = valid(p.Plaintext)
		}
		out = append(out, p)
	}
	return out
}

// reaching judges a key by the Coder the ProviderConfig of m points at,
// whose key a Ready m must hold: the run's, or the other one a plan
// repointed it to.
// Judging by the run's Coder alone took the other Coder's keys, which a
// resource repointed there holds by right, for dead ones (seeds
// 540571992116, 849976942575). ok is false while m's Ready may still be
// its previous Coder's: within two polls of a repoint, before the
// resource's next look can have seen the change, as Kubernetes shows a
// status as of the last reconcile.
func (r *run) reaching(ctx context.Context, m MR) (valid func(string) bool, ok bool) {
	r.mu.Lock()
	at, moved := r.repointed[m.PC]
	r.mu.Unlock()
	if moved && time.Since(at) < 2*PollInterval {
		return nil, false
	}
	o := r.plan.World.pcKey(r.plan.World.PCs[m.PC])
	if err := r.kube.Get(ctx, client.ObjectKeyFromObject(o), o); err != nil {
		return nil, false
	}
	pc, ok := o.(providerconfig.Object)
	if !ok {
		return nil, false
	}
	if c, ok := o.(resource.Conditioned); ok {
		// While the ProviderConfig cannot reach its Coder (seed
		// 148145596188: repointed back to a Coder that was down), the
		// resource cannot look again, and its Ready is as of its last
		// look, in the Coder it reached then; it looks within two polls
		// of the ProviderConfig's next Ready.
		ready := c.GetCondition(xpv2.TypeReady)
		if ready.Status != corev1.ConditionTrue || time.Since(ready.LastTransitionTime.Time) < 2*PollInterval {
			return nil, false
		}
	}
	var c any = r.coder
	if url := providerconfig.ConnectionOf(pc).URL; r.bed.Other != nil && url == r.bed.Other.URL() {
		c = r.bed.Other
	}
	return func(plaintext string) bool { return validKey(c, plaintext) }, true
}

// validKey reports whether the Coder c holds a live key of the plaintext;
// the real Coder keeps hashes only, so for it a non-empty plaintext is all
// the harness can check.
func validKey(c any, plaintext string) bool {
	if f, ok := c.(interface {
		ValidKey(string) (fakecoder.KeyRow, bool)
	}); ok {
		_, valid := f.ValidKey(plaintext)
		return valid
	}
	return true
}

func (r *run) namespaceDeleting(ctx context.Context, name string) bool {
	if name == "" {
		return false
	}
	ns := &corev1.Namespace{}
	err := r.kube.Get(ctx, types.NamespacedName{Name: name}, ns)
	return err != nil || ns.DeletionTimestamp != nil
}
