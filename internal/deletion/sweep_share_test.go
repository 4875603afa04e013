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

package deletion

import (
	"context"
	"strings"
	"testing"
	"time"

	kerrors "k8s.io/apimachinery/pkg/api/errors"
	kwait "k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"

	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
	"github.com/crossplane-contrib/provider-coder/internal/clients/coder"
	"github.com/crossplane-contrib/provider-coder/test/framework/fixture"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

func TestBudgetGivesEachClientOneWorkerAtATime(t *testing.T) {
	a, b := &coder.Client{}, &coder.Client{}
	type step struct {
		done bool // Done instead of Take
		cl   *coder.Client
		want bool
	}
	cases := map[string]struct {
		reason string
		steps  []step
	}{
		"FirstWorkerStarts": {
			reason: "a client with no worker gets one",
			steps:  []step{{cl: a, want: true}},
		},
		"SecondWorkerWaits": {
			reason: "while a client's worker of an earlier sweep runs, the client gets no more work: its records wait, nobody else's do",
			steps:  []step{{cl: a, want: true}, {cl: a, want: false}},
		},
		"OtherClientsAreNotHeld": {
			reason: "another client's worker starts beside a running one",
			steps:  []step{{cl: a, want: true}, {cl: b, want: true}, {cl: a, want: false}},
		},
		"DoneFreesTheClient": {
			reason: "once its worker is done the client gets the next sweep's work",
			steps:  []step{{cl: a, want: true}, {done: true, cl: a}, {cl: a, want: true}},
		},
		"DoneOfOneFreesOnlyIt": {
			reason: "the end of one client's worker frees no other",
			steps:  []step{{cl: a, want: true}, {cl: b, want: true}, {done: true, cl: b}, {cl: a, want: false}, {cl: b, want: true}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			bg := &Share{}
			for i, s := range tc.steps {
				if s.done {
					bg.Done(s.cl)
					continue
				}
				if got := bg.Take(s.cl); got != s.want {
					t.Errorf("%s\nstep %d: Take = %v, want %v", tc.reason, i, got, s.want)
				}
			}
		})
	}
}

func TestASlowCodersRecordsCostOnlyItsOwnShareOfTheSweep(t *testing.T) {
	const budget, wait, latency = time.Second, 300 * time.Millisecond, 4 * time.Second
	ctx := context.Background()
	// Tenant A's Coder answers every key list late, tenant B's at once.
	slow, _ := fixture.Coder(t)
	healthy, _ := fixture.Coder(t)
	if err := slow.SetFault(fakecoder.EndpointKeysList, fakecoder.Fault{Latency: latency}); err != nil {
		t.Fatal(err)
	}
	recA, recB := abandonedKeyOf(t, slow, "team-a", "0b1c2d3e-0000-4000-8000-00000000000a"), abandonedKeyOf(t, healthy, "team-b", "0b1c2d3e-0000-4000-8000-00000000000b")
	objs := append(readyConfig(slow, "team-a", recA.Spec.DeploymentID), readyConfig(healthy, "team-b", recB.Spec.DeploymentID)...)
	kube := fixture.Kube(t, append(objs, recA, recB)...).Build()
	sw := NewSweeper()
	sw.Kube, sw.Reader, sw.Log = kube, kube, logging.NewNopLogger()
	sw.Clients, sw.Timeout, sw.Share, sw.wait = coder.NewCache(4, time.Hour), 10*time.Second, budget, wait

	start := time.Now()
	res, err := sw.Sweep(ctx)
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if res != (Result{Swept: 1, Left: 1}) || took > wait+time.Second {
		t.Errorf("a sweep beside a Coder that takes %s to list: %+v after %s, want B's record swept and A's left within the sweep's wait %s", latency, res, took, wait)
	}
	if got := recordOf(t, kube, recB); got != nil {
		t.Errorf("B's record is still there after the sweep: %+v", got.Status)
	}
	// A second sweep while A's worker runs leaves A's record to it.
	if _, err := sw.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if got := recordOf(t, kube, recA); got == nil || got.Status.Attempts != 1 {
		t.Errorf("A's record while its worker runs: %+v, want it there with the 1 attempt of the first sweep", got)
	}
	// A's worker stops calling Coder at its budget, not at Coder's pace.
	// Its worker has ended once the record says so and its client is free
	// for the next sweep's work.
	var cut *clusterv1alpha1.CleanupRecord
	_ = kwait.PollUntilContextTimeout(ctx, 20*time.Millisecond, latency, true, func(context.Context) (bool, error) {
		cut = recordOf(t, kube, recA)
		sw.mu.Lock()
		defer sw.mu.Unlock()
		return cut != nil && cut.Status.LastError != "" && len(sw.shares.running) == 0, nil
	})
	if cut == nil || !strings.Contains(cut.Status.LastError, "ran out") || time.Since(start) > budget+time.Second {
		t.Errorf("A's record %s after the first sweep began: %+v, want its error saying its %s budget ran out", time.Since(start), cut, budget)
	}
	// A's worker is done: the next sweep gives A's record another try.
	if _, err := sw.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if got := recordOf(t, kube, recA); got == nil || got.Status.Attempts != 2 {
		t.Errorf("A's record after its worker ended and another sweep: %+v, want a second attempt", got)
	}
}

// abandonedKeyOf is an Abandoned record of a key resource in ns of UID
// uid, naming a key made in srv.
func abandonedKeyOf(t *testing.T, srv *fakecoder.Server, ns, uid string) *clusterv1alpha1.CleanupRecord {
	t.Helper()
	cl, err := coder.New(coder.Config{URL: srv.URL(), Token: srv.Token(), Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	bi, err := cl.BuildInfo(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	key, err := cl.CreateKey(context.Background(), "key-of-"+ns)
	if err != nil {
		t.Fatal(err)
	}
	rec := keyRecord(uid, bi.DeploymentID, key.ID.String(), clusterv1alpha1.CleanupPhaseAbandoned, time.Now().Add(-time.Hour))
	rec.Spec.ManagedResource.Namespace = ns
	return rec
}

// recordOf reads rec again; nil once it is gone.
func recordOf(t *testing.T, kube client.Client, rec *clusterv1alpha1.CleanupRecord) *clusterv1alpha1.CleanupRecord {
	t.Helper()
	got := &clusterv1alpha1.CleanupRecord{}
	err := kube.Get(context.Background(), client.ObjectKeyFromObject(rec), got)
	if kerrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return got
}
