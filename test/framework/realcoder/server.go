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
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/google/uuid"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/coder/coder/v2/codersdk"

	"github.com/crossplane-contrib/provider-coder/test/framework/ports"
)

// Options configure Start.
type Options struct {
	// Binary is the Coder binary; empty means Binary().
	Binary string
	// PostgresBin is PostgreSQL's bin directory; empty means PostgresBinDir().
	PostgresBin string
	// License is a Coder licence (the JWT Coder issued) to add after the
	// first user; empty means the one $PROVIDER_CODER_LICENSE_FILE names
	// (LicenseFromEnv), if any.
	License string
	// Unlicensed runs Coder as it ships, without a licence, even when
	// $PROVIDER_CODER_LICENSE_FILE names one.
	Unlicensed bool
	// Env adds to (and overrides) the server's environment, e.g. a
	// different CODER_ flag.
	Env []string
}

// OwnerEmail is the first user's email, and OwnerUsername its username.
const (
	OwnerEmail    = "admin@coder.test"
	OwnerUsername = "admin"
)

// Coder is a running Coder deployment: the server, its PostgreSQL and an
// Owner's session.
type Coder struct {
	// URL is the access URL, on loopback.
	URL *url.URL
	// Token is the Owner's session token.
	Token string
	// Postgres is the deployment's database.
	Postgres *Postgres
	// Licensed reports whether a licence was added: only then does Coder
	// serve its premium APIs (AI Gateway keys).
	Licensed bool

	binary   string
	dir      string
	addr     string
	env      []string
	proc     *process
	password string
}

// Start starts PostgreSQL and Coder, creates the first user (an Owner),
// logs in and, when o.License is set, adds that licence. Without one Coder
// runs as it ships, unlicensed: its AI Gateway keys API answers 403.
func Start(ctx context.Context, o Options) (_ *Coder, err error) {
	if o.Binary == "" {
		if o.Binary, err = Binary(); err != nil {
			return nil, err
		}
	}
	if o.PostgresBin == "" {
		if o.PostgresBin, err = PostgresBinDir(); err != nil {
			return nil, err
		}
	}
	if o.License == "" && !o.Unlicensed {
		if o.License, err = LicenseFromEnv(); err != nil {
			return nil, err
		}
	}
	if o.Unlicensed {
		o.License = ""
	}
	c := &Coder{binary: o.Binary, password: rand.Text()}
	defer func() {
		if err != nil {
			c.Stop()
		}
	}()
	if c.dir, err = os.MkdirTemp("", "provider-coder-coder-"); err != nil {
		return nil, fmt.Errorf("cannot create Coder directory: %w", err)
	}
	if c.Postgres, err = StartPostgres(ctx, o.PostgresBin); err != nil {
		return nil, err
	}
	port, err := ports.One()
	if err != nil {
		return nil, err
	}
	c.addr = "127.0.0.1:" + strconv.Itoa(port)
	c.URL = &url.URL{Scheme: "http", Host: c.addr}
	c.env = append(c.serverEnv(), o.Env...)
	if err := c.StartServer(ctx); err != nil {
		return nil, err
	}
	if err := c.bootstrap(ctx, o.License); err != nil {
		return nil, err
	}
	return c, nil
}

// serverEnv configures a server that reaches nothing but loopback.
func (c *Coder) serverEnv() []string {
	return []string{
		"HOME=" + c.dir,
		"CODER_CONFIG_DIR=" + filepath.Join(c.dir, "config"),
		"CODER_CACHE_DIRECTORY=" + filepath.Join(c.dir, "cache"),
		"CODER_PG_CONNECTION_URL=" + c.Postgres.URL,
		"CODER_HTTP_ADDRESS=" + c.addr,
		"CODER_ACCESS_URL=" + c.URL.String(),
		// CODER_AIBRIDGE_ENABLED's current name (the old one warns).
		"CODER_AI_GATEWAY_ENABLED=true",
		"CODER_TELEMETRY_ENABLE=false",
		"CODER_UPDATE_CHECK=false",
		"CODER_DERP_SERVER_STUN_ADDRESSES=disable",
		"CODER_PROVISIONER_DAEMONS=0",
		"CODER_OAUTH2_GITHUB_DEFAULT_PROVIDER_ENABLE=false",
		// Scenarios poll and create hundreds of objects from one user.
		"CODER_DANGEROUS_DISABLE_RATE_LIMITS=true",
		"PATH=" + os.Getenv("PATH"),
	}
}

// StartServer starts the Coder server (again, after StopServer) on the
// same address and database, and waits until it answers.
func (c *Coder) StartServer(ctx context.Context) error {
	if c.proc != nil {
		select {
		case <-c.proc.done:
		default:
			return errors.New("coder is already running")
		}
	}
	cmd := exec.Command(c.binary, "server")
	cmd.Env = c.env
	cmd.Dir = c.dir
	p, err := startProcess("coder", cmd, filepath.Join(c.dir, "coder.log"))
	if err != nil {
		return err
	}
	c.proc = p
	return c.waitReady(ctx)
}

// waitReady polls /api/v2/buildinfo, which needs no session, until it
// answers 200. Coder migrates its database before it listens, so a cold
// start takes a few seconds.
func (c *Coder) waitReady(ctx context.Context) error {
	hc := &http.Client{Timeout: 5 * time.Second}
	u := c.URL.JoinPath("/api/v2/buildinfo").String()
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return false, err
		}
		if resp, err := hc.Do(req); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return true, nil
			}
		}
		return false, c.proc.ended()
	})
	if wait.Interrupted(err) {
		return fmt.Errorf("coder did not answer %s: %w; last output:\n%s", u, err, c.proc.tail.String())
	}
	return err
}

// StopServer stops the Coder server as an operator would; PostgreSQL keeps
// running and StartServer brings the same deployment back.
func (c *Coder) StopServer() {
	if c.proc != nil {
		c.proc.stop(syscall.SIGTERM, 30*time.Second)
	}
}

// Stop stops the server and PostgreSQL and removes their data.
func (c *Coder) Stop() {
	c.StopServer()
	if c.Postgres != nil {
		c.Postgres.Stop()
	}
	if c.dir != "" {
		_ = os.RemoveAll(c.dir)
	}
}

// Logs returns the server's recent output.
func (c *Coder) Logs() string {
	if c.proc == nil {
		return ""
	}
	return c.proc.tail.String()
}

// bootstrap creates the first user, logs in and adds the licence, if any.
func (c *Coder) bootstrap(ctx context.Context, license string) error {
	anon := codersdk.New(c.URL)
	if _, err := anon.CreateFirstUser(ctx, codersdk.CreateFirstUserRequest{
		Email: OwnerEmail, Username: OwnerUsername, Name: "Admin", Password: c.password,
	}); err != nil {
		return fmt.Errorf("cannot create the first user: %w", err)
	}
	login, err := anon.LoginWithPassword(ctx, codersdk.LoginWithPasswordRequest{Email: OwnerEmail, Password: c.password})
	if err != nil {
		return fmt.Errorf("cannot log in as the first user: %w", err)
	}
	c.Token = login.SessionToken
	if license == "" {
		return nil
	}
	// Coder's answer names what is wrong with a licence; the licence
	// itself is never printed.
	if _, err := c.Client().AddLicense(ctx, codersdk.AddLicenseRequest{License: license}); err != nil {
		return fmt.Errorf("cannot add the licence from %s: %w", EnvLicenseFile, err)
	}
	c.Licensed = true
	return nil
}

// Client is a codersdk client with the Owner's session.
func (c *Coder) Client() *codersdk.Client {
	cl := codersdk.New(c.URL)
	cl.SetSessionToken(c.Token)
	return cl
}

// NewMember creates a user without site roles (a plain member of the
// default organization) and returns a client with its session.
func (c *Coder) NewMember(ctx context.Context, username string) (*codersdk.Client, error) {
	owner := c.Client()
	org, err := owner.OrganizationByName(ctx, codersdk.DefaultOrganization)
	if err != nil {
		return nil, fmt.Errorf("cannot get the default organization: %w", err)
	}
	email := username + "@coder.test"
	if _, err := owner.CreateUserWithOrgs(ctx, codersdk.CreateUserRequestWithOrgs{
		Email: email, Username: username, Name: "Member", Password: c.password, OrganizationIDs: []uuid.UUID{org.ID},
	}); err != nil {
		return nil, fmt.Errorf("cannot create member %s: %w", username, err)
	}
	cl := codersdk.New(c.URL)
	login, err := cl.LoginWithPassword(ctx, codersdk.LoginWithPasswordRequest{Email: email, Password: c.password})
	if err != nil {
		return nil, fmt.Errorf("cannot log in as member %s: %w", username, err)
	}
	cl.SetSessionToken(login.SessionToken)
	return cl, nil
}

// NewHeadless creates a user no one logs in as, gives it the site roles,
// and returns an API token the Owner made for it with the lifetime: the
// least-privilege user a ProviderConfig uses
// (docs/how-to/least-privilege.md). An unlicensed Coder v2.36 refuses
// login type none (400 "Login type 'none' requires a service account.",
// and service accounts are Premium) and OIDC or GitHub users where no IdP
// is configured, so the user has a password login whose random password
// is thrown away here. The token is never printed.
func (c *Coder) NewHeadless(ctx context.Context, username string, roles []string, lifetime time.Duration) (string, error) {
	owner := c.Client()
	org, err := owner.OrganizationByName(ctx, codersdk.DefaultOrganization)
	if err != nil {
		return "", fmt.Errorf("cannot get the default organization: %w", err)
	}
	u, err := owner.CreateUserWithOrgs(ctx, codersdk.CreateUserRequestWithOrgs{
		Email: username + "@coder.test", Username: username, Name: username, Password: rand.Text(), OrganizationIDs: []uuid.UUID{org.ID},
	})
	if err != nil {
		return "", fmt.Errorf("cannot create user %s: %w", username, err)
	}
	if _, err := owner.UpdateUserRoles(ctx, u.ID.String(), codersdk.UpdateRoles{Roles: roles}); err != nil {
		return "", fmt.Errorf("cannot give %s the roles %v: %w", username, roles, err)
	}
	tok, err := owner.CreateToken(ctx, u.ID.String(), codersdk.CreateTokenRequest{TokenName: "crossplane", Lifetime: lifetime})
	if err != nil {
		return "", fmt.Errorf("cannot create a token for %s: %w", username, err)
	}
	return tok.Key, nil
}
