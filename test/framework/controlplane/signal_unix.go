//go:build unix

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

import (
	"errors"
	"os"
	"syscall"
)

// terminate sends SIGTERM to the process group that sysProcAttr created.
func terminate(p *os.Process) error {
	return signalGroup(p, syscall.SIGTERM)
}

// kill sends SIGKILL to the process group that sysProcAttr created.
func kill(p *os.Process) error {
	return signalGroup(p, syscall.SIGKILL)
}

func signalGroup(p *os.Process, sig syscall.Signal) error {
	err := syscall.Kill(-p.Pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		// Already gone, which is what we want.
		return nil
	}
	return err
}
