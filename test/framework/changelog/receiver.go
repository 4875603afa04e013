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

// Package changelog is a change-log service for the tests: it takes the
// entries a provider started with --enable-changelogs sends, over the same
// gRPC API on a Unix socket as Crossplane's change-logs sidecar, and keeps
// them for the scenarios to read.
package changelog

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/encoding/protojson"

	changelogs "github.com/crossplane/crossplane-runtime/v2/apis/changelogs/proto/v1alpha1"
)

// A Receiver is a running change-log service.
type Receiver struct {
	changelogs.UnimplementedChangeLogServiceServer

	// Socket is the Unix socket it listens on: the provider's
	// --changelogs-socket.
	Socket string

	dir string
	srv *grpc.Server

	mu      sync.Mutex
	entries []*changelogs.ChangeLogEntry
}

// Start starts a Receiver on a socket in a directory of its own.
func Start() (*Receiver, error) {
	dir, err := os.MkdirTemp("", "changelogs")
	if err != nil {
		return nil, err
	}
	r := &Receiver{dir: dir, Socket: filepath.Join(dir, "changelogs.sock"), srv: grpc.NewServer()}
	l, err := net.Listen("unix", r.Socket)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	changelogs.RegisterChangeLogServiceServer(r.srv, r)
	go func() { _ = r.srv.Serve(l) }()
	return r, nil
}

// SendChangeLog keeps an entry.
func (r *Receiver) SendChangeLog(_ context.Context, req *changelogs.SendChangeLogRequest) (*changelogs.SendChangeLogResponse, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.entries = append(r.entries, req.GetEntry())
	return &changelogs.SendChangeLogResponse{}, nil
}

// Of returns the entries of the managed resource of uid, oldest first.
func (r *Receiver) Of(uid string) []*changelogs.ChangeLogEntry {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*changelogs.ChangeLogEntry
	for _, e := range r.entries {
		if UID(e) == uid {
			out = append(out, e)
		}
	}
	return out
}

// Text is every entry as JSON, one a line: what a log collector would
// store, to be searched for secrets.
func (r *Receiver) Text() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []byte
	for _, e := range r.entries {
		b, _ := protojson.Marshal(e)
		out = append(append(out, b...), '\n')
	}
	return string(out)
}

// Len is how many entries it took.
func (r *Receiver) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.entries)
}

// UID is the UID of the managed resource an entry's snapshot holds.
func UID(e *changelogs.ChangeLogEntry) string {
	md := e.GetSnapshot().GetFields()["metadata"].GetStructValue()
	return md.GetFields()["uid"].GetStringValue()
}

// Stop stops the service and removes its socket.
func (r *Receiver) Stop() {
	r.srv.Stop()
	_ = os.RemoveAll(r.dir)
}
