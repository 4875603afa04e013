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

// Package docblocks reads a documentation page's fenced code blocks and the
// markers a page uses to say how a block runs: test/docs runs the pages'
// blocks, test/crossplane the install guide's. It must not skip a block that
// has no marker.
package docblocks

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"strings"
)

// A Block is one fenced code block of a page.
type Block struct {
	// Line is the line of its opening fence, from 1.
	Line int
	// Lang is the fence's info string: sh, yaml, ...; empty for output.
	Lang string
	Text string
	// Marker is how the page says to run it; the zero Marker runs it.
	Marker Marker
}

// A Marker is an HTML comment on the line before a block (blank lines
// between are allowed): <!-- docs-test: <verb> <argument> -->.
type Marker struct {
	Verb string
	// Arg is why, for skip and dry-run; the file name, for file.
	Arg string
}

// The verbs of a marker.
const (
	// VerbSkip: the block cannot run on the test bed (a registry, a real
	// Coder, helm, a watch that never ends); the argument says why.
	VerbSkip = "skip"
	// VerbDryRun: a YAML block applied with server-side dry run, because
	// applying it would change what the test bed stands for; it says why.
	VerbDryRun = "dry-run"
	// VerbFile: a block the page asks the reader to save; it is written to
	// the working directory under the name given, for a later block.
	VerbFile = "file"
	// VerbKubelet: a block that needs pods to run (a wait for a ready
	// replica): make e2e runs it on kind; the test bed, which has no
	// kubelet, skips it, and the argument says what it checks instead.
	VerbKubelet = "kubelet"
)

// Skipped says whether a runner skips the block: one marked skip, or one
// marked kubelet where no kubelet runs pods.
func (m Marker) Skipped(kubelet bool) bool {
	return m.Verb == VerbSkip || m.Verb == VerbKubelet && !kubelet
}

var (
	fence  = regexp.MustCompile("^(\\s*)```+\\s*([A-Za-z0-9_+-]*)\\s*$")
	marker = regexp.MustCompile(`^\s*<!--\s*docs-test:\s*(\S+)\s*(.*?)\s*-->\s*$`)
)

// Blocks returns the fenced code blocks of a Markdown page with their
// markers. A marker with an unknown verb, without its argument, or not
// followed by a block is an error, so a typo cannot skip a block.
func Blocks(page []byte) ([]Block, error) {
	var (
		out     []Block
		pending *Marker
		pendAt  int
		open    *Block
		indent  string
		body    []string
	)
	sc := bufio.NewScanner(bytes.NewReader(page))
	sc.Buffer(make([]byte, 1024*1024), 1024*1024)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if open != nil {
			if m := fence.FindStringSubmatch(line); len(m) > 2 && m[2] == "" {
				open.Text = strings.Join(body, "\n") + "\n"
				out = append(out, *open)
				open = nil
				continue
			}
			body = append(body, strings.TrimPrefix(line, indent))
			continue
		}
		if m := marker.FindStringSubmatch(line); m != nil {
			if pending != nil {
				return nil, fmt.Errorf("line %d: a docs-test marker not followed by a code block", pendAt)
			}
			mk, err := parseMarker(m[1], m[2])
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", n, err)
			}
			pending, pendAt = &mk, n
			continue
		}
		if m := fence.FindStringSubmatch(line); m != nil {
			open = &Block{Line: n, Lang: m[2]}
			if pending != nil {
				open.Marker = *pending
				pending = nil
			}
			indent, body = m[1], nil
			continue
		}
		if pending != nil && strings.TrimSpace(line) != "" {
			return nil, fmt.Errorf("line %d: a docs-test marker not followed by a code block", pendAt)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if open != nil {
		return nil, fmt.Errorf("line %d: a code block that is never closed", open.Line)
	}
	if pending != nil {
		return nil, fmt.Errorf("line %d: a docs-test marker not followed by a code block", pendAt)
	}
	return out, nil
}

func parseMarker(verb, arg string) (Marker, error) {
	switch verb {
	case VerbSkip, VerbDryRun, VerbKubelet:
		why, ok := strings.CutPrefix(arg, "(")
		why, ok2 := strings.CutSuffix(why, ")")
		if !ok || !ok2 || strings.TrimSpace(why) == "" {
			return Marker{}, fmt.Errorf("docs-test: %s needs a reason in parentheses, got %q", verb, arg)
		}
		return Marker{Verb: verb, Arg: why}, nil
	case VerbFile:
		if arg == "" || strings.ContainsAny(arg, "/ ") {
			return Marker{}, fmt.Errorf("docs-test: file needs a plain file name, got %q", arg)
		}
		return Marker{Verb: verb, Arg: arg}, nil
	default:
		return Marker{}, fmt.Errorf("docs-test: unknown verb %q (want %s, %s, %s or %s)", verb, VerbSkip, VerbDryRun, VerbKubelet, VerbFile)
	}
}

// Shell reports whether a block is a shell block, which the test runs.
func (b Block) Shell() bool {
	switch b.Lang {
	case "sh", "shell", "bash", "console":
		return true
	}
	return false
}

// YAML reports whether a block is a YAML block, which the test applies.
func (b Block) YAML() bool { return b.Lang == "yaml" || b.Lang == "yml" }

// crankCommand finds the crossplane CLI's subcommands a page names: crank
// (as tools/crank builds it) or crossplane followed by a subcommand.
var crankCommand = regexp.MustCompile(`\b(?:crank|crossplane)((?: (?:xpkg|beta|alpha|render|validate|trace|convert|top|push|build|install|update|extract|init|batch|login|logout|version)\b)+)`)

// CLICommands are the crossplane CLI commands a page names, in text or
// code, as their words: "xpkg push", "beta validate".
func CLICommands(page []byte) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range crankCommand.FindAllSubmatch(page, -1) {
		words := strings.TrimSpace(string(m[1]))
		if !seen[words] {
			seen[words] = true
			out = append(out, words)
		}
	}
	return out
}

// LooksLikeCommands says whether an unlabelled block starts with a
// command a reader would type, rather than with output.
func LooksLikeCommands(text string) bool {
	first, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	for _, cmd := range []string{"kubectl ", "curl ", "make ", "go ", "export ", "crank ", "helm "} {
		if strings.HasPrefix(first, cmd) {
			return true
		}
	}
	return false
}
