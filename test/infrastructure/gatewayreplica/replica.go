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

// Package gatewayreplica is a stand-in for a standalone AI Gateway replica
// (`coder ai-gateway start`, Coder v2.36.0) as far as provider-coder cares:
// it holds a session on Coder's /api/v2/ai-gateway/serve with one AI
// Gateway key, redials when Coder closes it, and exits when Coder refuses
// the key. Tests use it to see what a key rotation or deletion does to the
// gateways that consume the key.
//
// Each behaviour and the Coder file it comes from:
//
//   - the key is read once, at start (enterprise/cli/aigatewaystart.go
//     resolveAIGatewayKey, from --key/CODER_AI_GATEWAY_KEY or
//     --key-file/CODER_AI_GATEWAY_KEY_FILE): a replica never sees a rotated
//     secret until it is restarted, so Start takes the resolved key;
//   - the dial: GET /api/v2/ai-gateway/serve?version=<aibridged API
//     version> with the key in codersdk.AIGatewayKeyHeader and the build
//     in codersdk.BuildVersionHeader, WebSocket without compression
//     (coderd/aibridged/dialer.go NewWebsocketDialer);
//   - 400, 401 and 403 on a dial are terminal and the process exits
//     (coderd/aibridged/aibridged.go connect; enterprise/cli/aigatewaystart.go
//     serve returns "AI Gateway daemon exited"); any other failure is
//     retried with coder/retry's back-off, 50 ms to 10 s, growing by phi,
//     reset after a connection (aibridged.go connect);
//   - a closed session is redialled (aibridged.go connect, continue
//     connectLoop);
//   - Ready is /readyz: connected to coderd (aigatewaystart.go ready). The
//     real replica also waits for its first provider load over DRPC, which
//     this one does not speak.
//
// It must not log, wrap or return the key.
package gatewayreplica

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	aibridgedproto "github.com/coder/coder/v2/coderd/aibridged/proto"
	"github.com/coder/coder/v2/codersdk"
	"github.com/coder/websocket"
)

// Back-off between dials: retry.New(50*time.Millisecond, 10*time.Second)
// in coderd/aibridged/aibridged.go, whose rate is math.Phi.
const (
	retryFloor = 50 * time.Millisecond
	retryCeil  = 10 * time.Second
)

// RefusedError is a dial Coder answered with a terminal status: the
// replica has exited. It names the status and Coder's message, never the
// key.
type RefusedError struct {
	Status  int
	Message string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("gatewayreplica: coder refused the AI Gateway session: %d %s: %s",
		e.Status, http.StatusText(e.Status), e.Message)
}

// Replica is one running replica. Create it with Start.
type Replica struct {
	serveURL string
	key      string
	cancel   context.CancelFunc
	ready    atomic.Bool
	// changed is closed, and replaced, each time ready flips.
	mu      sync.Mutex
	changed chan struct{}
	done    chan struct{}
	err     error // set before done closes
}

// Start runs a replica of coderURL (e.g. http://127.0.0.1:3000) that
// authenticates with key until ctx ends, Stop is called, or Coder refuses
// it.
func Start(ctx context.Context, coderURL string, key string) *Replica {
	ctx, cancel := context.WithCancel(ctx)
	r := &Replica{serveURL: serveURL(coderURL), key: key, cancel: cancel, changed: make(chan struct{}), done: make(chan struct{})}
	go r.run(ctx)
	return r
}

// serveURL is the URL NewWebsocketDialer dials (coderd/aibridged/dialer.go).
func serveURL(coderURL string) string {
	q := url.Values{}
	q.Set(aibridgedproto.VersionQueryParam, aibridgedproto.CurrentVersion.String())
	return coderURL + "/api/v2/ai-gateway/serve?" + q.Encode()
}

// Ready reports whether the replica holds a session, as its /readyz does.
func (r *Replica) Ready() bool { return r.ready.Load() }

// Changed is closed the next time Ready's answer changes: take it before
// reading Ready, then wait on it.
func (r *Replica) Changed() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.changed
}

func (r *Replica) setReady(v bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ready.Store(v)
	close(r.changed)
	r.changed = make(chan struct{})
}

// Done is closed when the replica has exited.
func (r *Replica) Done() <-chan struct{} { return r.done }

// Wait blocks until the replica exits and returns why: a *RefusedError
// when Coder refused a dial, nil when it was stopped.
func (r *Replica) Wait() error {
	<-r.done
	return r.err
}

// Stop ends the replica and waits for it to exit.
func (r *Replica) Stop() {
	r.cancel()
	<-r.done
}

func (r *Replica) run(ctx context.Context) {
	defer close(r.done)
	var delay time.Duration
	for {
		var wait time.Duration
		wait, delay = backoff(delay)
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		conn, err := r.dial(ctx)
		var refused *RefusedError
		switch {
		case errors.As(err, &refused):
			r.err = refused
			return
		case err != nil:
			continue // Coder down or answering 5xx: retry
		}
		delay = 0 // retrier.Reset() after a connection
		r.hold(ctx, conn)
	}
}

// backoff is coder/retry's Retrier.Wait: the wait before the next dial
// grows by phi from the previous delay up to the ceiling, and a delay
// below the floor is raised to it afterwards, so the first dial (and the
// first after a connection) is at once.
func backoff(delay time.Duration) (wait, next time.Duration) {
	wait = min(retryCeil, time.Duration(float64(delay)*math.Phi))
	return wait, max(wait, retryFloor)
}

// dial opens a session; a terminal answer is a *RefusedError.
func (r *Replica) dial(ctx context.Context) (*websocket.Conn, error) {
	h := http.Header{}
	h.Set(codersdk.AIGatewayKeyHeader, r.key)
	h.Set(codersdk.BuildVersionHeader, "gatewayreplica")
	conn, res, err := websocket.Dial(ctx, r.serveURL, &websocket.DialOptions{
		HTTPHeader:      h,
		CompressionMode: websocket.CompressionDisabled,
	})
	if err == nil {
		return conn, nil
	}
	if res != nil && res.Body != nil {
		// ReadBodyAsError reads it; closed either way.
		defer res.Body.Close()
	}
	if res == nil || !terminal(res.StatusCode) {
		return nil, errors.New("gatewayreplica: dial failed")
	}
	refused := &RefusedError{Status: res.StatusCode}
	var sdkErr *codersdk.Error
	if errors.As(codersdk.ReadBodyAsError(res), &sdkErr) {
		refused.Message = sdkErr.Message
	}
	return nil, refused
}

// terminal is the set of dial answers after which aibridged stops
// (coderd/aibridged/aibridged.go connect): wrong key, incompatible API
// version, or no entitlement.
func terminal(status int) bool {
	switch status {
	case http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden:
		return true
	}
	return false
}

// hold keeps the session until Coder closes it or ctx ends. It speaks no
// yamux: the fake sends nothing, but a real Coder's yamux keepalive pings
// go unanswered and it drops the session, so against a real Coder this
// replica redials about every half minute.
func (r *Replica) hold(ctx context.Context, conn *websocket.Conn) {
	r.setReady(true)
	defer r.setReady(false)
	defer func() { _ = conn.CloseNow() }()
	for {
		if _, _, err := conn.Read(ctx); err != nil {
			return
		}
	}
}
