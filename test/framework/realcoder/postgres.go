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

package realcoder

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"time"

	_ "github.com/lib/pq" // the database/sql driver for Coder's tables
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/crossplane-contrib/provider-coder/test/framework/ports"
)

// EnvPostgresBin overrides where PostgreSQL's server binaries (initdb,
// postgres) are found; by default the newest /usr/lib/postgresql/<ver>/bin,
// as Debian's postgresql package installs them (hack/install-postgres.sh).
const EnvPostgresBin = "PROVIDER_CODER_PG_BIN"

// Postgres is a PostgreSQL server of the test's own: its own data directory
// and port on loopback, trusting every local connection.
type Postgres struct {
	// URL connects to the database Coder uses.
	URL string
	// DB is a connection pool to that database.
	DB *sql.DB

	dir  string
	proc *process
}

// PostgresBinDir finds initdb and postgres.
func PostgresBinDir() (string, error) {
	if d := os.Getenv(EnvPostgresBin); d != "" {
		return d, checkPostgresBin(d)
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	// Newest major version first; the names are integers since PostgreSQL 10.
	slices.SortFunc(dirs, func(a, b string) int {
		va, _ := strconv.Atoi(filepath.Base(filepath.Dir(a)))
		vb, _ := strconv.Atoi(filepath.Base(filepath.Dir(b)))
		return vb - va
	})
	for _, d := range dirs {
		if checkPostgresBin(d) == nil {
			return d, nil
		}
	}
	return "", errors.New("cannot find PostgreSQL's server binaries in /usr/lib/postgresql/*/bin; run hack/install-postgres.sh (apt-get install postgresql) or set " + EnvPostgresBin)
}

func checkPostgresBin(dir string) error {
	for _, name := range []string{"initdb", "postgres"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("cannot find PostgreSQL's %s: %w", name, err)
		}
	}
	return nil
}

// StartPostgres initialises a data directory under a new temporary
// directory, starts PostgreSQL on a free loopback port and creates the
// database "coder". PostgreSQL refuses to run as root, so as root it runs as
// the postgres user the Debian package creates.
func StartPostgres(ctx context.Context, binDir string) (_ *Postgres, err error) {
	dir, err := os.MkdirTemp("", "provider-coder-pg-")
	if err != nil {
		return nil, fmt.Errorf("cannot create PostgreSQL directory: %w", err)
	}
	p := &Postgres{dir: dir}
	defer func() {
		if err != nil {
			p.Stop()
		}
	}()
	data := filepath.Join(dir, "data")
	if err := os.Mkdir(data, 0o700); err != nil {
		return nil, fmt.Errorf("cannot create PostgreSQL data directory: %w", err)
	}
	cred, err := postgresCredential(dir, data)
	if err != nil {
		return nil, err
	}

	initdb := exec.CommandContext(ctx, filepath.Join(binDir, "initdb"),
		"-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("cannot initdb: %w\n%s", err, out)
	}

	port, err := ports.One()
	if err != nil {
		return nil, err
	}
	// Durability buys nothing in a test and costs seconds per scenario.
	cmd := exec.Command(filepath.Join(binDir, "postgres"), "-D", data,
		"-p", strconv.Itoa(port), "-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=",
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if p.proc, err = startProcess("postgres", cmd, filepath.Join(dir, "postgres.log")); err != nil {
		return nil, err
	}

	admin, err := p.open(ctx, fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port))
	if err != nil {
		return nil, err
	}
	defer func() { _ = admin.Close() }()
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE coder"); err != nil {
		return nil, fmt.Errorf("cannot create database: %w", err)
	}
	p.URL = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/coder?sslmode=disable", port)
	if p.DB, err = sql.Open("postgres", p.URL); err != nil {
		return nil, fmt.Errorf("cannot open database: %w", err)
	}
	return p, nil
}

// postgresCredential returns who PostgreSQL runs as: nil (this user) unless
// this is root, then the postgres user, who gets the directories.
func postgresCredential(dirs ...string) (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("cannot run PostgreSQL as root and there is no postgres user (install Debian's postgresql package): %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	for _, d := range dirs {
		if err := os.Chown(d, uid, gid); err != nil {
			return nil, fmt.Errorf("cannot hand %s to postgres: %w", d, err)
		}
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// open waits until PostgreSQL accepts connections at url.
func (p *Postgres) open(ctx context.Context, url string) (*sql.DB, error) {
	db, err := sql.Open("postgres", url)
	if err != nil {
		return nil, fmt.Errorf("cannot open database: %w", err)
	}
	var last error
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		if last = db.PingContext(ctx); last == nil {
			return true, nil
		}
		return false, p.proc.ended()
	})
	switch {
	case err == nil:
		return db, nil
	case wait.Interrupted(err):
		err = fmt.Errorf("PostgreSQL did not accept connections: %w; last output:\n%s", last, p.proc.tail.String())
	}
	_ = db.Close()
	return nil, err
}

// Stop stops PostgreSQL and removes its data.
func (p *Postgres) Stop() {
	if p.DB != nil {
		_ = p.DB.Close()
	}
	if p.proc != nil {
		// SIGINT is PostgreSQL's "fast shutdown": no waiting for clients.
		p.proc.stop(syscall.SIGINT, 20*time.Second)
	}
	_ = os.RemoveAll(p.dir)
}

// Logs returns PostgreSQL's recent output.
func (p *Postgres) Logs() string { return p.proc.tail.String() }
