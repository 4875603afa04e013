//go:build unix

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
