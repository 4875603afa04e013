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

import "github.com/google/uuid"

// Mimic makes s a tenant's hostile server: the next keys, AI providers and
// groups it creates take ids, in turn, instead of new ones, such as ids it saw at
// another deployment (the platform's). Unlike the AnswerOtherID fault its
// answers agree with each other: the create answers the id, and every list
// and read shows the object under the name asked for with that id, so a
// read-back confirms it. Only the Coder each record was made through can
// tell the two objects apart.
func (s *Server) Mimic(ids ...uuid.UUID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mimic = append(s.mimic, ids...)
}

// StopMimicking makes s create under new ids again: the Mimic ids it has
// not used yet are forgotten.
func (s *Server) StopMimicking() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mimic = nil
}

// newID is the id of an object being created: the next Mimic id, else a
// new one. The caller holds s.mu.
func (s *Server) newID() uuid.UUID {
	if len(s.mimic) == 0 {
		return uuid.New()
	}
	id := s.mimic[0]
	s.mimic = s.mimic[1:]
	return id
}
