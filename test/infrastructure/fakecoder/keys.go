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
	"crypto/subtle"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/coder/coder/v2/codersdk"
)

// KeyRow is a stored AI Gateway key.
type KeyRow struct {
	ID        uuid.UUID `json:"id"`
	Name      string    `json:"name"`
	KeyPrefix string    `json:"key_prefix"`
	// Key is the full secret. Coder keeps only its SHA-256; the fake keeps
	// the plaintext so tests can compare it with what a consumer received.
	Key             string     `json:"key"`
	CreatedAt       time.Time  `json:"created_at"`
	LastHeartbeatAt *time.Time `json:"last_heartbeat_at,omitempty"`
}

// Key geometry from coderd/aibridge/keys/keys.go: a 43-character
// alphanumeric secret whose first 11 characters are the visible prefix.
const (
	keyPrefixLength = 11
	keyLength       = keyPrefixLength + 32
)

// keyNameRegex and keyNameMaxLength are the ai_gateway_keys_name_check
// constraint (coderd/database/dump.sql).
var keyNameRegex = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

const keyNameMaxLength = 64

// Keys returns the stored keys in creation order. Deleted keys are gone:
// Coder hard-deletes them (DELETE FROM ai_gateway_keys).
func (s *Server) Keys() []KeyRow {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]KeyRow, 0, len(s.keys))
	for _, k := range s.keys {
		out = append(out, k.clone())
	}
	return out
}

// IssuedPlaintexts returns the plaintext of every key Coder ever returned,
// deleted keys included: what must never appear anywhere but a connection
// Secret.
func (s *Server) IssuedPlaintexts() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.issued)
}

// Heartbeat records that a gateway using the key checked in at the given
// time, as a standalone AI Gateway replica does every minute.
func (s *Server) Heartbeat(keyID uuid.UUID, at time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range s.keys {
		if k.ID == keyID {
			t := at.UTC().Round(time.Microsecond)
			k.LastHeartbeatAt = &t
			return nil
		}
	}
	return ErrNotFound
}

// ValidKey reports whether a gateway replica presenting plaintext would be
// let in, as Coder checks the key header, and returns the key's row.
func (s *Server) ValidKey(plaintext string) (KeyRow, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range s.keys {
		if subtle.ConstantTimeCompare([]byte(k.Key), []byte(plaintext)) == 1 {
			return k.clone(), true
		}
	}
	return KeyRow{}, false
}

// A KeyLifetime is when one key existed. Coder keeps no such history; the
// fake does, so tests can tell how many keys existed at once.
type KeyLifetime struct {
	ID      uuid.UUID
	Name    string
	Created time.Time
	// Deleted is nil while the key exists.
	Deleted *time.Time
}

// KeyHistory returns every key created since the server started or was
// reset, in creation order.
func (s *Server) KeyHistory() []KeyLifetime {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]KeyLifetime, len(s.keyLog))
	for i, l := range s.keyLog {
		out[i] = l
		if l.Deleted != nil {
			d := *l.Deleted
			out[i].Deleted = &d
		}
	}
	return out
}

// PeakKeys returns the largest number of keys whose name match accepts
// that existed at the same time.
func (s *Server) PeakKeys(match func(name string) bool) int {
	type change struct {
		at    time.Time
		delta int
	}
	var changes []change
	for _, l := range s.KeyHistory() {
		if !match(l.Name) {
			continue
		}
		changes = append(changes, change{l.Created, 1})
		if l.Deleted != nil {
			changes = append(changes, change{*l.Deleted, -1})
		}
	}
	// At equal times a delete counts first: the key was gone when the
	// other was made.
	slices.SortStableFunc(changes, func(a, b change) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return a.delta - b.delta
	})
	peak, n := 0, 0
	for _, c := range changes {
		n += c.delta
		peak = max(peak, n)
	}
	return peak
}

func (s *Server) logKeyDeleted(id uuid.UUID) {
	for i := range s.keyLog {
		if s.keyLog[i].ID == id && s.keyLog[i].Deleted == nil {
			t := s.now()
			s.keyLog[i].Deleted = &t
		}
	}
}

func (k *KeyRow) clone() KeyRow {
	c := *k
	if k.LastHeartbeatAt != nil {
		t := *k.LastHeartbeatAt
		c.LastHeartbeatAt = &t
	}
	return c
}

// listKeys mirrors aiGatewayKeys (enterprise/coderd/aigatewaykeys.go).
func (s *Server) listKeys(*http.Request) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.owner {
		// enterprise/coderd/aigatewaykeys.go aiGatewayKeys: dbauthz
		// ListAIGatewayKeys refuses a non-owner -> httpapi.Forbidden, 403.
		return forbiddenReply
	}
	out := make([]codersdk.AIGatewayKey, 0, len(s.keys))
	for _, k := range s.keys {
		c := k.clone()
		out = append(out, codersdk.AIGatewayKey{
			ID:              c.ID,
			Name:            c.Name,
			KeyPrefix:       c.KeyPrefix,
			CreatedAt:       c.CreatedAt,
			LastHeartbeatAt: c.LastHeartbeatAt,
		})
	}
	// enterprise/coderd/aigatewaykeys.go aiGatewayKeys: 200, a JSON array
	// (never null: make(..., 0, len(rows))).
	return reply{http.StatusOK, out}
}

// createKey mirrors postAIGatewayKey and writeKeyInsertError
// (enterprise/coderd/aigatewaykeys.go). The checks run in the real order:
// body validation, then authorization, then the DB check constraint, then
// the unique index on lower(name).
func (s *Server) createKey(r *http.Request) reply {
	var req codersdk.CreateAIGatewayKeyRequest
	// enterprise/coderd/aigatewaykeys.go postAIGatewayKey: httpapi.Read
	// first (coderd/httpapi/httpapi.go Read: 400 on bad JSON or a failed
	// validate tag).
	if rep, ok := readJSON(r, &req); !ok {
		return rep
	}
	if req.Name == "" {
		// The request struct's validate:"required" tag
		// (codersdk/aigatewaykeys.go CreateAIGatewayKeyRequest), as
		// coderd/httpapi/httpapi.go Read reports it: 400 "Validation
		// failed." with the json field name.
		return reply{http.StatusBadRequest, codersdk.Response{
			Message: "Validation failed.",
			Validations: []codersdk.ValidationError{{
				Field:  "name",
				Detail: `Validation failed for tag "required" with value: ""`,
			}},
		}}
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.owner {
		// enterprise/coderd/aigatewaykeys.go writeKeyInsertError: dbauthz
		// InsertAIGatewayKey refuses a non-owner -> httpapi.Forbidden, 403.
		return forbiddenReply
	}
	if len(req.Name) > keyNameMaxLength || !keyNameRegex.MatchString(req.Name) {
		// enterprise/coderd/aigatewaykeys.go writeKeyInsertError,
		// CheckAIGatewayKeysNameCheck: 400 "Invalid key name." with
		// nameFormatDetail.
		return reply{http.StatusBadRequest, codersdk.Response{
			Message: "Invalid key name.",
			Validations: []codersdk.ValidationError{{
				Field:  "name",
				Detail: "Must be 64 characters or fewer, lowercase letters, numbers, and non-consecutive hyphens, cannot start or end with a hyphen.",
			}},
		}}
	}
	for _, k := range s.keys {
		if strings.EqualFold(k.Name, req.Name) {
			// enterprise/coderd/aigatewaykeys.go writeKeyInsertError,
			// UniqueAIGatewayKeysNameIndex: 400 "Key name must be unique.".
			return reply{http.StatusBadRequest, codersdk.Response{
				Message: "Key name must be unique.",
				Validations: []codersdk.ValidationError{{
					Field:  "name",
					Detail: "A key with this name already exists.",
				}},
			}}
		}
	}

	secret := randomAlphanumeric(keyLength)
	k := &KeyRow{
		ID:        s.newID(),
		Name:      req.Name,
		KeyPrefix: secret[:keyPrefixLength],
		Key:       secret,
		CreatedAt: s.now(),
	}
	s.keys = append(s.keys, k)
	s.keyLog = append(s.keyLog, KeyLifetime{ID: k.ID, Name: k.Name, Created: k.CreatedAt})
	s.issued = append(s.issued, k.Key)
	// enterprise/coderd/aigatewaykeys.go postAIGatewayKey: 201 with the
	// plaintext, the only time Coder returns it.
	return reply{http.StatusCreated, codersdk.CreateAIGatewayKeyResponse{
		ID:        k.ID,
		Name:      k.Name,
		Key:       k.Key,
		KeyPrefix: k.KeyPrefix,
		CreatedAt: k.CreatedAt,
	}}
}

// deleteKey mirrors deleteAIGatewayKey (enterprise/coderd/aigatewaykeys.go):
// the ID is parsed before authorization, and the row is removed for good.
func (s *Server) deleteKey(r *http.Request) reply {
	id, err := uuid.Parse(r.PathValue("key"))
	if err != nil {
		// enterprise/coderd/aigatewaykeys.go deleteAIGatewayKey: 400
		// "Invalid key ID." with uuid.Parse's error as detail.
		return errorReply(http.StatusBadRequest, "Invalid key ID.", err.Error())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.owner {
		// enterprise/coderd/aigatewaykeys.go deleteAIGatewayKey: dbauthz
		// DeleteAIGatewayKey refuses a non-owner before looking the key
		// up -> httpapi.Forbidden, 403 (even for a key that is not there).
		return forbiddenReply
	}
	for i, k := range s.keys {
		if k.ID == id {
			s.keys = append(s.keys[:i], s.keys[i+1:]...)
			s.logKeyDeleted(id)
			// enterprise/coderd/aigatewaykeys.go deleteAIGatewayKey: 204,
			// no body.
			return reply{status: http.StatusNoContent}
		}
	}
	// enterprise/coderd/aigatewaykeys.go deleteAIGatewayKey: sql.ErrNoRows
	// -> httpapi.ResourceNotFound, 404.
	return notFoundReply
}
