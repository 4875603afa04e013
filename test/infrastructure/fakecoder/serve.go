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

package fakecoder

import (
	"context"
	"maps"
	"net/http"
	"time"

	"github.com/google/uuid"

	aibridgedproto "github.com/coder/coder/v2/coderd/aibridged/proto"
	"github.com/coder/coder/v2/codersdk"
	"github.com/coder/websocket"
)

// EndpointServe is where standalone AI Gateway replicas hold their
// WebSocket session; each dial counts once.
const EndpointServe = "GET /api/v2/ai-gateway/serve"

// HeartbeatInterval is how often Coder refreshes a connected key's
// last_heartbeat_at and checks that the key and the entitlement are still
// there (aiGatewayKeyHeartbeatInterval, enterprise/coderd/aibridgeserve.go).
// A key deleted while a replica is connected is noticed within it.
const HeartbeatInterval = 60 * time.Second

// The gateway serve endpoint's refusals, verbatim from aiGatewayServe
// (enterprise/coderd/aibridgeserve.go).
const (
	msgGatewayKeyRequired = "AI Gateway key required."
	msgGatewayKeyInvalid  = "AI Gateway key invalid."
	msgGatewayVersion     = "Incompatible or unparsable version"
)

// serveGateway mirrors aiGatewayServe (enterprise/coderd/aibridgeserve.go)
// as far as a test can see it: the key header is checked before the
// upgrade, then the aibridged API version, then the WebSocket is accepted
// and the key heartbeats at once and every interval until the key is gone
// or the entitlement lapses. The fake speaks no yamux or DRPC: it keeps the
// socket open and reads until either side closes it. The route's
// RequireFeatureMW (the 403) runs before this (routes).
func (s *Server) serveGateway(w http.ResponseWriter, r *http.Request) {
	row, rep, ok := s.admitGateway(r)
	if !ok {
		writeJSON(w, rep.status, rep.body)
		return
	}
	// enterprise/coderd/aibridgeserve.go: compression is disabled (yamux
	// reads and writes concurrently). A failed upgrade has been answered
	// by Accept itself.
	conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{CompressionMode: websocket.CompressionDisabled})
	if err != nil {
		return
	}

	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	peerGone := make(chan struct{})
	go func() { //nolint:gosec // G118: the read below outlives the request by design (see there).
		defer close(peerGone)
		for {
			// The read ends when the socket closes, which the handler
			// does on its way out: a request-scoped context would not
			// outlive the hijacked connection anyway.
			if _, _, err := conn.Read(context.Background()); err != nil {
				return
			}
		}
	}()
	// aiGatewayServe heartbeats on accept, then
	// aiGatewayCheckEntitlementAndTrackKeyUsage every interval.
	_ = s.Heartbeat(row.ID, s.now())
	s.trackSession(row.ID, 1) // after the heartbeat, so a counted session has one
	defer s.trackSession(row.ID, -1)
	go s.watchSession(ctx, cancel, row.ID)

	select {
	case <-peerGone:
	case <-ctx.Done(): // key gone, entitlement lapsed, server down or closed
		// aiGatewayServe ends a session it cancelled with StatusGoingAway.
		_ = conn.Close(websocket.StatusGoingAway, "")
	case <-s.done:
		_ = conn.Close(websocket.StatusGoingAway, "")
	}
	_ = conn.CloseNow()
	<-peerGone
}

// admitGateway runs aiGatewayServe's checks before the upgrade, in its
// order: key header present, key known, API version compatible. It
// returns the key's row, or what to answer instead.
func (s *Server) admitGateway(r *http.Request) (KeyRow, reply, bool) {
	key := r.Header.Get(codersdk.AIGatewayKeyHeader)
	if key == "" {
		return KeyRow{}, reply{http.StatusUnauthorized, codersdk.Response{Message: msgGatewayKeyRequired}}, false
	}
	row, ok := s.ValidKey(key)
	if !ok {
		// GetAIGatewayKeyByHashedSecret finds no row: 401.
		return KeyRow{}, reply{http.StatusUnauthorized, codersdk.Response{Message: msgGatewayKeyInvalid}}, false
	}
	version := r.URL.Query().Get(aibridgedproto.VersionQueryParam)
	if err := aibridgedproto.CurrentVersion.Validate(version); err != nil {
		return KeyRow{}, reply{http.StatusBadRequest, codersdk.Response{
			Message: msgGatewayVersion,
			Validations: []codersdk.ValidationError{
				{Field: aibridgedproto.VersionQueryParam, Detail: err.Error()},
				{Field: "client_api_version", Detail: version},
				{Field: "server_api_version", Detail: aibridgedproto.CurrentVersion.String()},
			},
		}}, false
	}
	return row, reply{}, true
}

// watchSession is aiGatewayCheckEntitlementAndTrackKeyUsage
// (enterprise/coderd/aibridgeserve.go): every interval it heartbeats the
// key and cancels the session when sessionEnds says so.
func (s *Server) watchSession(ctx context.Context, cancel context.CancelFunc, keyID uuid.UUID) {
	t := time.NewTicker(s.heartbeatInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		keyExists := s.Heartbeat(keyID, s.now()) == nil
		s.mu.Lock()
		entitled := s.aiGatewayLocked().Enabled
		s.mu.Unlock()
		if sessionEnds(keyExists, entitled) {
			cancel()
			return
		}
	}
}

// sessionEnds is the tick's decision in
// aiGatewayCheckEntitlementAndTrackKeyUsage: the heartbeat's update found
// no row (the key was deleted), or the AI Gateway feature is no longer
// enabled (the licence went, or CODER_AI_GATEWAY_ENABLED is off).
func sessionEnds(keyExists, entitled bool) bool {
	return !keyExists || !entitled
}

func (s *Server) trackSession(keyID uuid.UUID, delta int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sessions[keyID] += delta
	if s.sessions[keyID] <= 0 {
		delete(s.sessions, keyID)
	}
	close(s.sessionsChanged)
	s.sessionsChanged = make(chan struct{})
}

// SessionsChanged is closed the next time OpenSessions' answer changes:
// take it before reading OpenSessions, then wait on it.
func (s *Server) SessionsChanged() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessionsChanged
}

// OpenSessions returns how many gateway replicas hold a session on
// /api/v2/ai-gateway/serve, by the id of the key they authenticated with.
// Keys without a session are left out. A deleted key's sessions stay
// until the next heartbeat tick closes them, as in Coder.
func (s *Server) OpenSessions() map[uuid.UUID]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.sessions)
}
