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
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// tailSize is how much of a component's recent output is kept in memory to
// explain a failure without asking the reader to find the log file.
const tailSize = 4 << 10

// process is one running control plane component.
type process struct {
	name string
	cmd  *exec.Cmd
	tail *Tail
	// log is the file output goes to when Options.Logs is nil.
	log *os.File

	// done is closed once the process has exited and err is set.
	done chan struct{}
	err  error
}

// startProcess starts the binary at path. Its output goes to logs, prefixed
// with the component name, or to logDir/<name>.log when logs is nil.
func startProcess(name, path string, args []string, logs io.Writer, logMu *sync.Mutex, logDir string) (*process, error) {
	p := &process{name: name, tail: &Tail{Size: tailSize}, done: make(chan struct{})}

	var out io.Writer
	var pw *prefixWriter
	if logs != nil {
		pw = &prefixWriter{prefix: name + ": ", w: logs, mu: logMu}
		out = pw
	} else {
		f, err := os.Create(logDir + "/" + name + ".log")
		if err != nil {
			return nil, fmt.Errorf("cannot create %s log file: %w", name, err)
		}
		p.log = f
		out = f
	}
	// One writer for both streams: exec then copies them from a single
	// goroutine, so prefixWriter needs no locking of its own buffer.
	out = io.MultiWriter(out, p.tail)

	// Not exec.CommandContext: the context given to Start bounds startup,
	// not the life of the control plane, which ends with Stop.
	p.cmd = exec.Command(path, args...)
	p.cmd.Stdout = out
	p.cmd.Stderr = out
	p.cmd.SysProcAttr = SysProcAttr()
	// The copying goroutines only end when every holder of the pipe exits;
	// don't let a stray grandchild hold Stop hostage.
	p.cmd.WaitDelay = 5 * time.Second

	if err := p.cmd.Start(); err != nil {
		p.closeLog()
		return nil, fmt.Errorf("cannot start %s: %w", name, err)
	}
	go func() {
		p.err = p.cmd.Wait()
		if pw != nil {
			pw.flush()
		}
		p.closeLog()
		close(p.done)
	}()
	return p, nil
}

// exited returns an error describing why the process ended, with its last
// output, for use once done is closed.
func (p *process) exited() error {
	status := "exited"
	if p.err != nil {
		status = p.err.Error()
	}
	return fmt.Errorf("%s exited unexpectedly (%s); last output:\n%s", p.name, status, p.tail.String())
}

// stop asks the process group to terminate and kills it after grace. A
// process that already exited is not an error: Stop only promises that
// nothing is left running.
func (p *process) stop(grace time.Duration) error {
	select {
	case <-p.done:
		return nil
	default:
	}
	if err := terminate(p.cmd.Process); err != nil {
		return fmt.Errorf("cannot terminate %s: %w", p.name, err)
	}
	select {
	case <-p.done:
		return nil
	case <-time.After(grace):
	}
	if err := kill(p.cmd.Process); err != nil {
		return fmt.Errorf("cannot kill %s: %w", p.name, err)
	}
	<-p.done
	return nil
}

func (p *process) closeLog() {
	if p.log != nil {
		_ = p.log.Close()
	}
}

// A Tail keeps the last Size bytes written to it: what a process printed
// last, for the error that says why it stopped.
type Tail struct {
	Size int
	mu   sync.Mutex
	buf  []byte
}

func (t *Tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if over := len(t.buf) - t.Size; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(b), nil
}

func (t *Tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := string(t.buf)
	if len(t.buf) == t.Size {
		// Drop the partial first line.
		if _, rest, ok := strings.Cut(s, "\n"); ok {
			s = rest
		}
	}
	return s
}

// prefixWriter writes whole lines to w, each prefixed so that the interleaved
// output of the components stays readable. Components share mu so their
// lines never mix.
type prefixWriter struct {
	prefix string
	w      io.Writer
	mu     *sync.Mutex
	buf    []byte
}

func (pw *prefixWriter) Write(b []byte) (int, error) {
	pw.buf = append(pw.buf, b...)
	for {
		i := bytes.IndexByte(pw.buf, '\n')
		if i < 0 {
			break
		}
		pw.writeLine(pw.buf[:i+1])
		pw.buf = pw.buf[i+1:]
	}
	return len(b), nil
}

// flush writes a final unterminated line, if any.
func (pw *prefixWriter) flush() {
	if len(pw.buf) > 0 {
		pw.writeLine(append(pw.buf, '\n'))
		pw.buf = nil
	}
}

func (pw *prefixWriter) writeLine(line []byte) {
	pw.mu.Lock()
	defer pw.mu.Unlock()
	// Errors are dropped: losing log output must not break a component.
	_, _ = io.WriteString(pw.w, pw.prefix)
	_, _ = pw.w.Write(line)
}
