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
	"errors"
	"net/http"

	"github.com/google/uuid"

	"github.com/coder/coder/v2/codersdk"
)

// The admin API of the directory (directory.go), for tests that run the
// fake in another process:
//
//	GET    /fakecoder/admin/users                          []UserRow
//	POST   /fakecoder/admin/users                          {"username"} -> UserRow (409 if taken)
//	GET    /fakecoder/admin/groups                         []GroupRow
//	POST   /fakecoder/admin/groups                         {"name"} -> GroupRow (409 if taken)
//	DELETE /fakecoder/admin/groups/{group}                 -> 204
//	PUT    /fakecoder/admin/groups/{group}/members/{user}  -> 204
//	DELETE /fakecoder/admin/groups/{group}/members/{user}  -> 204
//	PUT    /fakecoder/admin/spend                          AdminSpend -> 204
//	GET    /fakecoder/admin/budgets                        AdminBudgets

// AdminSpend sets a user's spend attributed to a group (Server.SetSpend).
type AdminSpend struct {
	UserID      uuid.UUID `json:"user_id"`
	GroupID     uuid.UUID `json:"group_id"`
	SpendMicros int64     `json:"spend_micros"`
}

// AdminBudgets are the stored group budgets and user overrides, by id.
type AdminBudgets struct {
	Groups    map[uuid.UUID]codersdk.GroupAIBudget        `json:"groups"`
	Overrides map[uuid.UUID]codersdk.UserAIBudgetOverride `json:"overrides"`
}

func (s *Server) directoryAdminRoutes(mux *http.ServeMux, p string) {
	for route, h := range map[string]http.HandlerFunc{
		"GET " + p + "/users":                            func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, http.StatusOK, s.Users()) },
		"POST " + p + "/users":                           s.adminCreateUser,
		"GET " + p + "/groups":                           func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, http.StatusOK, s.Groups()) },
		"POST " + p + "/groups":                          s.adminCreateGroup,
		"DELETE " + p + "/groups/{group}":                s.adminDeleteGroup,
		"PUT " + p + "/groups/{group}/members/{user}":    s.adminMember(s.AddGroupMember),
		"DELETE " + p + "/groups/{group}/members/{user}": s.adminMember(s.RemoveGroupMember),
		"PUT " + p + "/spend":                            s.adminSetSpend,
		"GET " + p + "/budgets":                          s.adminBudgets,
	} {
		mux.HandleFunc(route, h)
	}
}

func (s *Server) adminCreateUser(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Username string `json:"username"`
	}
	if !decodeAdmin(w, r, &body) {
		return
	}
	u, err := s.CreateUser(body.Username)
	if err != nil {
		adminError(w, adminStatus(err), err)
		return
	}
	writeJSON(w, http.StatusCreated, u)
}

func (s *Server) adminCreateGroup(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Name string `json:"name"`
	}
	if !decodeAdmin(w, r, &body) {
		return
	}
	g, err := s.CreateGroup(body.Name)
	if err != nil {
		adminError(w, adminStatus(err), err)
		return
	}
	writeJSON(w, http.StatusCreated, g)
}

func (s *Server) adminDeleteGroup(w http.ResponseWriter, r *http.Request) {
	id, err := uuid.Parse(r.PathValue("group"))
	if err == nil {
		err = s.DeleteGroup(id)
	}
	adminDone(w, err)
}

func (s *Server) adminMember(change func(group, user uuid.UUID) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		group, err := uuid.Parse(r.PathValue("group"))
		if err != nil {
			adminError(w, http.StatusBadRequest, err)
			return
		}
		user, err := uuid.Parse(r.PathValue("user"))
		if err != nil {
			adminError(w, http.StatusBadRequest, err)
			return
		}
		adminDone(w, change(group, user))
	}
}

func (s *Server) adminSetSpend(w http.ResponseWriter, r *http.Request) {
	var body AdminSpend
	if !decodeAdmin(w, r, &body) {
		return
	}
	adminDone(w, s.SetSpend(body.UserID, body.GroupID, body.SpendMicros))
}

func (s *Server) adminBudgets(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, AdminBudgets{Groups: s.GroupBudgets(), Overrides: s.BudgetOverrides()})
}

// adminDone answers 204, or the error with its status.
func adminDone(w http.ResponseWriter, err error) {
	if err != nil {
		adminError(w, adminStatus(err), err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func adminStatus(err error) int {
	switch {
	case errors.Is(err, ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, ErrConflict):
		return http.StatusConflict
	}
	return http.StatusBadRequest
}

// CreateUser adds a user to the fake (Server.CreateUser).
func (c *AdminClient) CreateUser(ctx context.Context, username string) (UserRow, error) {
	var out UserRow
	err := c.do(ctx, http.MethodPost, "/users", map[string]string{"username": username}, &out)
	return out, err
}

// CreateGroup adds a group to the fake's organization (Server.CreateGroup).
func (c *AdminClient) CreateGroup(ctx context.Context, name string) (GroupRow, error) {
	var out GroupRow
	err := c.do(ctx, http.MethodPost, "/groups", map[string]string{"name": name}, &out)
	return out, err
}

// DeleteGroup deletes a group with its budget and overrides.
func (c *AdminClient) DeleteGroup(ctx context.Context, group uuid.UUID) error {
	return c.do(ctx, http.MethodDelete, "/groups/"+group.String(), nil, nil)
}

// AddGroupMember adds a user to a group.
func (c *AdminClient) AddGroupMember(ctx context.Context, group, user uuid.UUID) error {
	return c.do(ctx, http.MethodPut, "/groups/"+group.String()+"/members/"+user.String(), nil, nil)
}

// RemoveGroupMember removes a user from a group, and the user's override
// attributed to it.
func (c *AdminClient) RemoveGroupMember(ctx context.Context, group, user uuid.UUID) error {
	return c.do(ctx, http.MethodDelete, "/groups/"+group.String()+"/members/"+user.String(), nil, nil)
}

// SetSpend sets a user's spend attributed to a group this period.
func (c *AdminClient) SetSpend(ctx context.Context, user, group uuid.UUID, micros int64) error {
	return c.do(ctx, http.MethodPut, "/spend", AdminSpend{UserID: user, GroupID: group, SpendMicros: micros}, nil)
}

// Budgets returns the stored group budgets and user overrides.
func (c *AdminClient) Budgets(ctx context.Context) (AdminBudgets, error) {
	var out AdminBudgets
	err := c.do(ctx, http.MethodGet, "/budgets", nil, &out)
	return out, err
}
