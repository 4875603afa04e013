package fakecoder

import (
	"net/http"
	"regexp"
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
	return reply{http.StatusOK, out}
}

// createKey mirrors postAIGatewayKey and writeKeyInsertError
// (enterprise/coderd/aigatewaykeys.go). The checks run in the real order:
// body validation, then authorization, then the DB check constraint, then
// the unique index on lower(name).
func (s *Server) createKey(r *http.Request) reply {
	var req codersdk.CreateAIGatewayKeyRequest
	if rep, ok := readJSON(r, &req); !ok {
		return rep
	}
	if req.Name == "" {
		// The request struct's validate:"required" tag, as httpapi.Read
		// reports it.
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
		return forbiddenReply
	}
	if len(req.Name) > keyNameMaxLength || !keyNameRegex.MatchString(req.Name) {
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
		ID:        uuid.New(),
		Name:      req.Name,
		KeyPrefix: secret[:keyPrefixLength],
		Key:       secret,
		CreatedAt: now(),
	}
	s.keys = append(s.keys, k)
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
		return errorReply(http.StatusBadRequest, "Invalid key ID.", err.Error())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.owner {
		return forbiddenReply
	}
	for i, k := range s.keys {
		if k.ID == id {
			s.keys = append(s.keys[:i], s.keys[i+1:]...)
			return reply{status: http.StatusNoContent}
		}
	}
	return notFoundReply
}
