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
	"bytes"
	"cmp"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/google/uuid"

	aibridgeutils "github.com/coder/coder/v2/aibridge/utils"
	"github.com/coder/coder/v2/codersdk"
)

// ProviderRow is a stored AI provider, secrets included.
type ProviderRow struct {
	ID   uuid.UUID               `json:"id"`
	Type codersdk.AIProviderType `json:"type"`
	Name string                  `json:"name"`
	// DisplayName is the stored column: empty means NULL, which the API
	// serves as Name.
	DisplayName string           `json:"display_name"`
	Icon        string           `json:"icon"`
	Enabled     bool             `json:"enabled"`
	Deleted     bool             `json:"deleted"`
	BaseURL     string           `json:"base_url"`
	APIKeys     []ProviderKeyRow `json:"api_keys"`
	// Settings includes the write-only Bedrock credentials the API strips.
	Settings  codersdk.AIProviderSettings `json:"settings"`
	CreatedAt time.Time                   `json:"created_at"`
	UpdatedAt time.Time                   `json:"updated_at"`
}

// ProviderKeyRow is a stored provider API key, in plaintext.
type ProviderKeyRow struct {
	ID        uuid.UUID `json:"id"`
	APIKey    string    `json:"api_key"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// PlaintextKeys returns the provider's API keys in API order.
func (p ProviderRow) PlaintextKeys() []string {
	out := make([]string, 0, len(p.APIKeys))
	for _, k := range p.APIKeys {
		out = append(out, k.APIKey)
	}
	return out
}

func (p *ProviderRow) clone() ProviderRow {
	c := *p
	c.APIKeys = slices.Clone(p.APIKeys)
	c.Settings = cloneSettings(p.Settings)
	return c
}

func cloneSettings(s codersdk.AIProviderSettings) codersdk.AIProviderSettings {
	if s.Bedrock == nil {
		return s
	}
	b := *s.Bedrock
	b.AccessKey = clonePtr(b.AccessKey)
	b.AccessKeySecret = clonePtr(b.AccessKeySecret)
	return codersdk.AIProviderSettings{Bedrock: &b}
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// sortKeys orders keys like GetAIProviderKeysByProviderID: created_at,
// then id. Keys inserted by one request share created_at, so their order
// follows the (random) IDs, as in Coder.
func sortKeys(keys []ProviderKeyRow) {
	slices.SortFunc(keys, func(a, b ProviderKeyRow) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), bytes.Compare(a.ID[:], b.ID[:]))
	})
}

// Providers returns the stored providers in creation order, soft-deleted
// ones too when includeDeleted is set.
func (s *Server) Providers(includeDeleted bool) []ProviderRow {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []ProviderRow
	for _, p := range s.providers {
		if includeDeleted || !p.Deleted {
			out = append(out, p.clone())
		}
	}
	return out
}

// EditProvider changes a live provider behind the API's back, as a human
// in the Coder UI would. edit gets a copy; keys it adds without an ID get a
// new ID and timestamps, and UpdatedAt is bumped unless edit set it. It
// returns the stored result. edit runs under the server's lock, so it must
// not call the Server.
func (s *Server) EditProvider(idOrName string, edit func(*ProviderRow)) (ProviderRow, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.findLiveProvider(idOrName)
	if p == nil {
		return ProviderRow{}, ErrNotFound
	}
	c := p.clone()
	edit(&c)
	if !codersdk.AIProviderNameRegex.MatchString(c.Name) {
		return ProviderRow{}, fmt.Errorf("fakecoder: invalid provider name %q", c.Name)
	}
	if !c.Deleted {
		if other := s.findLiveProvider(c.Name); other != nil && other != p {
			return ProviderRow{}, fmt.Errorf("fakecoder: provider name %q is taken", c.Name)
		}
	}
	t := s.now()
	for i := range c.APIKeys {
		if c.APIKeys[i].ID == uuid.Nil {
			c.APIKeys[i] = ProviderKeyRow{ID: uuid.New(), APIKey: c.APIKeys[i].APIKey, CreatedAt: t, UpdatedAt: t}
		}
	}
	sortKeys(c.APIKeys)
	if c.UpdatedAt.Equal(p.UpdatedAt) {
		c.UpdatedAt = t
	}
	*p = c
	return p.clone(), nil
}

// findLiveProvider finds a non-deleted provider by ID or name.
func (s *Server) findLiveProvider(idOrName string) *ProviderRow {
	id, idErr := uuid.Parse(idOrName)
	for _, p := range s.providers {
		if !p.Deleted && ((idErr == nil && p.ID == id) || (idErr != nil && p.Name == idOrName)) {
			return p
		}
	}
	return nil
}

// lookupProvider mirrors lookupAIProvider and writeAIProviderError
// (coderd/ai_providers.go): a path value that is neither a UUID nor a valid
// name is a 400 before any authorization, then non-owners get 403, and
// soft-deleted rows are 404. Callers hold s.mu.
func (s *Server) lookupProvider(idOrName string) (*ProviderRow, *reply) {
	if _, err := uuid.Parse(idOrName); err != nil && !codersdk.AIProviderNameRegex.MatchString(idOrName) {
		rep := errorReply(http.StatusBadRequest,
			fmt.Sprintf("Invalid provider id or name: must be a UUID or match %s.", codersdk.AIProviderNameRegex), "")
		return nil, &rep
	}
	if !s.owner {
		return nil, &forbiddenReply
	}
	if p := s.findLiveProvider(idOrName); p != nil {
		return p, nil
	}
	return nil, &notFoundReply
}

// toSDK mirrors db2sdk.AIProvider (coderd/database/db2sdk/db2sdk.go):
// display name falls back to name, keys are masked with aibridge's
// MaskSecret, and Bedrock credentials are stripped.
func (p *ProviderRow) toSDK() codersdk.AIProvider {
	display := p.Name
	if p.DisplayName != "" {
		display = p.DisplayName
	}
	keys := make([]codersdk.AIProviderKey, 0, len(p.APIKeys))
	for _, k := range p.APIKeys {
		keys = append(keys, codersdk.AIProviderKey{ID: k.ID, Masked: aibridgeutils.MaskSecret(k.APIKey), CreatedAt: k.CreatedAt})
	}
	settings := cloneSettings(p.Settings)
	if settings.Bedrock != nil {
		settings.Bedrock.AccessKey = nil
		settings.Bedrock.AccessKeySecret = nil
	}
	return codersdk.AIProvider{
		ID:          p.ID,
		Type:        p.Type,
		Name:        p.Name,
		DisplayName: display,
		Icon:        p.Icon,
		Enabled:     p.Enabled,
		BaseURL:     p.BaseURL,
		APIKeys:     keys,
		Settings:    settings,
		CreatedAt:   p.CreatedAt,
		UpdatedAt:   p.UpdatedAt,
	}
}

// listProviders mirrors aiProvidersList: live rows, disabled included,
// ordered by name.
func (s *Server) listProviders(*http.Request) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.owner {
		return forbiddenReply
	}
	out := make([]codersdk.AIProvider, 0, len(s.providers))
	for _, p := range s.providers {
		if !p.Deleted {
			out = append(out, p.toSDK())
		}
	}
	slices.SortFunc(out, func(a, b codersdk.AIProvider) int { return cmp.Compare(a.Name, b.Name) })
	return reply{http.StatusOK, out}
}

func (s *Server) getProvider(r *http.Request) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, rep := s.lookupProvider(r.PathValue("idOrName"))
	if rep != nil {
		return *rep
	}
	return reply{http.StatusOK, p.toSDK()}
}

const bedrockRejectsKeysMessage = "Bedrock providers do not accept api_keys; configure access credentials via settings."

// createProvider mirrors aiProvidersCreate (coderd/ai_providers.go).
func (s *Server) createProvider(r *http.Request) reply {
	var req codersdk.CreateAIProviderRequest
	if rep, ok := readJSON(r, &req); !ok {
		return rep
	}
	if v := req.Validate(); len(v) > 0 {
		return reply{http.StatusBadRequest, codersdk.Response{Message: "Invalid AI provider request.", Validations: v}}
	}
	// Anthropic with Bedrock settings passes Validate but still may not
	// carry keys.
	if req.Settings.Bedrock != nil && len(req.APIKeys) > 0 {
		return errorReply(http.StatusBadRequest, bedrockRejectsKeysMessage, "")
	}
	ensureBedrockExternalID(&req.Settings)

	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.owner {
		return forbiddenReply
	}
	if s.findLiveProvider(req.Name) != nil {
		// Only live rows conflict: the unique index is partial on
		// deleted = FALSE. The insert runs in a transaction (InTx), whose
		// wrapper shows in the detail.
		return errorReply(http.StatusConflict, fmt.Sprintf("AI provider %q already exists.", req.Name),
			`execute transaction: pq: duplicate key value violates unique constraint "ai_providers_name_unique"`)
	}
	t := s.now()
	p := &ProviderRow{
		ID:          s.newID(),
		Type:        req.Type,
		Name:        req.Name,
		DisplayName: req.DisplayName,
		Icon:        req.Icon,
		Enabled:     req.Enabled,
		BaseURL:     req.BaseURL,
		APIKeys:     []ProviderKeyRow{},
		Settings:    cloneSettings(req.Settings),
		CreatedAt:   t,
		UpdatedAt:   t,
	}
	for _, key := range req.APIKeys {
		p.APIKeys = append(p.APIKeys, ProviderKeyRow{ID: uuid.New(), APIKey: key, CreatedAt: t, UpdatedAt: t})
	}
	sortKeys(p.APIKeys)
	s.providers = append(s.providers, p)
	return reply{http.StatusCreated, p.toSDK()}
}

// updateProvider mirrors aiProvidersUpdate (coderd/ai_providers.go),
// including the order of its checks. Everything is computed on copies and
// stored only at the end, like the real handler's transaction. Name and
// type cannot change: the request has no such fields and unknown JSON
// fields are ignored.
func (s *Server) updateProvider(r *http.Request) reply {
	var req codersdk.UpdateAIProviderRequest
	if rep, ok := readJSON(r, &req); !ok {
		return rep
	}
	if req.IsEmpty() {
		return errorReply(http.StatusBadRequest, "At least one field must be provided.", "")
	}
	if v := req.Validate(); len(v) > 0 {
		return reply{http.StatusBadRequest, codersdk.Response{Message: "Invalid AI provider request.", Validations: v}}
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	p, rep := s.lookupProvider(r.PathValue("idOrName"))
	if rep != nil {
		return *rep
	}
	settings := cloneSettings(p.Settings)
	if req.Settings != nil {
		if patched := req.Settings.Bedrock; patched != nil && patched.ExternalID != "" &&
			(settings.Bedrock == nil || patched.ExternalID != settings.Bedrock.ExternalID) {
			return errorReply(http.StatusBadRequest, "The Bedrock external ID is server-generated and cannot be changed.", "")
		}
		settings = mergeSettings(settings, cloneSettings(*req.Settings))
	}
	if settings.Bedrock != nil && p.Type != codersdk.AIProviderTypeAnthropic && p.Type != codersdk.AIProviderTypeBedrock {
		return errorReply(http.StatusBadRequest, "Bedrock settings are only valid for type=anthropic or type=bedrock.", "")
	}
	ensureBedrockExternalID(&settings)
	if req.APIKeys != nil && len(*req.APIKeys) > 0 {
		if settings.Bedrock != nil {
			return errorReply(http.StatusBadRequest, bedrockRejectsKeysMessage, "")
		}
		if p.Type == codersdk.AIProviderTypeCopilot {
			return errorReply(http.StatusBadRequest, "Copilot providers do not accept api_keys; they authenticate via request-time GitHub OAuth tokens.", "")
		}
	}

	t := s.now()
	keys := p.APIKeys
	if req.APIKeys != nil {
		var err error
		if keys, err = applyKeyMutations(p.APIKeys, *req.APIKeys, t); err != nil {
			return errorReply(http.StatusBadRequest, errUnknownProviderKey.Error(), unknownKeyDetail(err))
		}
	}
	if req.DisplayName != nil {
		p.DisplayName = *req.DisplayName // "" stores NULL
	}
	if req.Icon != nil {
		p.Icon = *req.Icon
	}
	if req.Enabled != nil {
		p.Enabled = *req.Enabled
	}
	if req.BaseURL != nil {
		p.BaseURL = *req.BaseURL
	}
	p.Settings = settings
	p.APIKeys = keys
	p.UpdatedAt = t // UpdateAIProvider always sets updated_at = NOW()
	return reply{http.StatusOK, p.toSDK()}
}

var errUnknownProviderKey = errors.New("api_keys references an unknown id for this provider")

// unknownKeyDetail is the detail Coder answers with: applyAIProviderKeyOps
// wraps the sentinel as xerrors.Errorf("%w: %s", sentinel, id), and
// xerrors, whose wrapping verb is not the last, appends the wrapped error
// once more; InTx adds "execute transaction: ".
func unknownKeyDetail(err error) string {
	return "execute transaction: " + err.Error() + ": " + errUnknownProviderKey.Error()
}

// applyKeyMutations mirrors applyAIProviderKeyOps: the list is the desired
// key set, where an ID keeps that key, a plaintext adds a key, and keys
// whose ID is absent are deleted. Validate already rejected malformed
// entries.
func applyKeyMutations(existing []ProviderKeyRow, muts []codersdk.AIProviderKeyMutation, t time.Time) ([]ProviderKeyRow, error) {
	keep := map[uuid.UUID]bool{}
	var added []ProviderKeyRow
	for _, m := range muts {
		switch {
		case m.ID != nil:
			if !slices.ContainsFunc(existing, func(k ProviderKeyRow) bool { return k.ID == *m.ID }) {
				return nil, fmt.Errorf("%w: %s", errUnknownProviderKey, *m.ID)
			}
			keep[*m.ID] = true
		case m.APIKey != nil:
			added = append(added, ProviderKeyRow{ID: uuid.New(), APIKey: *m.APIKey, CreatedAt: t, UpdatedAt: t})
		}
	}
	out := make([]ProviderKeyRow, 0, len(keep)+len(added))
	for _, k := range existing {
		if keep[k.ID] {
			out = append(out, k)
		}
	}
	out = append(out, added...)
	sortKeys(out)
	return out, nil
}

// mergeSettings mirrors mergeAIProviderSettings: a patch without Bedrock
// clears the settings; omitted (nil) credentials keep the stored ones; the
// external ID always carries over from the stored row.
func mergeSettings(existing, patch codersdk.AIProviderSettings) codersdk.AIProviderSettings {
	if patch.Bedrock == nil {
		return codersdk.AIProviderSettings{}
	}
	merged := *patch.Bedrock
	if existing.Bedrock != nil {
		if merged.AccessKey == nil {
			merged.AccessKey = existing.Bedrock.AccessKey
		}
		if merged.AccessKeySecret == nil {
			merged.AccessKeySecret = existing.Bedrock.AccessKeySecret
		}
		merged.ExternalID = existing.Bedrock.ExternalID
	}
	return codersdk.AIProviderSettings{Bedrock: &merged}
}

// ensureBedrockExternalID mirrors the real helper: the server generates the
// STS external ID (crypto/rand.Text) once a role ARN is set, and keeps it.
func ensureBedrockExternalID(s *codersdk.AIProviderSettings) {
	if s.Bedrock != nil && s.Bedrock.RoleARN != "" && s.Bedrock.ExternalID == "" {
		s.Bedrock.ExternalID = rand.Text()
	}
}

// deleteProvider mirrors aiProvidersDelete and DeleteAIProviderByID: a soft
// delete that also disables the row and bumps updated_at. Keys stay.
func (s *Server) deleteProvider(r *http.Request) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, rep := s.lookupProvider(r.PathValue("idOrName"))
	if rep != nil {
		return *rep
	}
	p.Deleted = true
	p.Enabled = false
	p.UpdatedAt = s.now()
	return reply{status: http.StatusNoContent}
}
