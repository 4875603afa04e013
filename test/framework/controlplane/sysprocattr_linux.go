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

package controlplane

import "syscall"

// SysProcAttr puts each component in its own process group, so Stop can
// signal everything it started, and asks the kernel to kill it if the test
// binary dies without calling Stop (a panic, a timeout, SIGKILL). Strictly,
// Pdeathsig fires when the OS thread that started the child exits, but Go
// only ends a thread when a goroutine exits while locked to it, so in
// practice this is the life of the test binary.
func SysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
