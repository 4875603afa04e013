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

import "time"

// The deployment's clock: a real Coder dates its rows and answers by its
// host's clock, which may run minutes apart from the cluster's. The fake's
// runs SetClockOffset ahead of the host's.

// now is the deployment's clock, as now() but shifted by the clock offset.
func (s *Server) now() time.Time {
	return now().Add(time.Duration(s.clockOffset.Load()))
}

// Now is the time on the deployment's clock: what the fake dates rows
// with and puts in its answers' Date header.
func (s *Server) Now() time.Time { return s.now() }

// SetClockOffset makes the deployment's clock run d ahead of the host's
// (behind when d is negative), as a Coder host whose clock drifted does:
// rows created from now on, heartbeats without a time, and every answer's
// Date header are shifted by d. Rows already stored keep their times.
func (s *Server) SetClockOffset(d time.Duration) { s.clockOffset.Store(int64(d)) }

// ClockOffset is the offset SetClockOffset set.
func (s *Server) ClockOffset() time.Duration { return time.Duration(s.clockOffset.Load()) }
