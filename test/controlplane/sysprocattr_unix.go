//go:build unix && !linux

package controlplane

import "syscall"

// SysProcAttr puts each component in its own process group, so Stop can
// signal everything it started. Only Linux can also tie the child's life to
// the test binary's.
func SysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
