//go:build !unix

package controlplane

import (
	"os"
	"syscall"
)

func sysProcAttr() *syscall.SysProcAttr { return nil }

// terminate kills the process: there are no process groups or SIGTERM to
// ask it more gently.
func terminate(p *os.Process) error { return p.Kill() }

func kill(p *os.Process) error { return p.Kill() }
