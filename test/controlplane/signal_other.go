//go:build !unix

package controlplane

import (
	"os"
	"syscall"
)

// SysProcAttr is nil: there are no process groups to put a child in.
func SysProcAttr() *syscall.SysProcAttr { return nil }

// terminate kills the process: there are no process groups or SIGTERM to
// ask it more gently.
func terminate(p *os.Process) error { return p.Kill() }

func kill(p *os.Process) error { return p.Kill() }
