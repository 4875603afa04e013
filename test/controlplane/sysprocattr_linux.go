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
