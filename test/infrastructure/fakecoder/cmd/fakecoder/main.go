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

// Command fakecoder serves the fakecoder test double of the Coder API, for
// tests that need it in another process (e.g. a kind cluster). It prints
// the base URL on the first line of stdout and runs until SIGINT/SIGTERM.
//
// The session token comes from --token or $CODER_TOKEN; without either a
// token is generated. It is never printed: read it from
// GET <url>/fakecoder/admin/config.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "fakecoder:", err)
		os.Exit(1)
	}
}

func run() error {
	var (
		listen       = flag.String("listen", "127.0.0.1:3000", "address of the Coder API (and admin API)")
		adminListen  = flag.String("admin-listen", "", "optional extra address serving only the admin API; it stays up while the API is down")
		token        = flag.String("token", os.Getenv("CODER_TOKEN"), "session token clients must present (default $CODER_TOKEN, else generated)")
		deploymentID = flag.String("deployment-id", "", "deployment ID reported by /api/v2/buildinfo (default random)")
		version      = flag.String("version", fakecoder.CoderVersion, "version reported by /api/v2/buildinfo")
		member       = flag.Bool("member", false, "authenticate as a plain member instead of an owner")
		userAdmin    = flag.Bool("user-admin", false, "give the user Coder's User Admin role (with -member: budgets and overrides, no provider or key)")
		unlicensed   = flag.Bool("unlicensed", false, "start without the AI Gateway entitlement")
		noAIGateway  = flag.Bool("ai-gateway-disabled", false, "start licensed for AI Gateway but with it disabled (CODER_AI_GATEWAY_ENABLED=false)")
	)
	flag.Parse()

	srv := fakecoder.New(fakecoder.Options{
		Token:             *token,
		DeploymentID:      *deploymentID,
		Version:           *version,
		Member:            *member,
		UserAdmin:         *userAdmin,
		Unlicensed:        *unlicensed,
		AIGatewayDisabled: *noAIGateway,
	})
	if err := srv.StartOn(*listen); err != nil {
		return err
	}
	defer srv.Close()
	fmt.Println(srv.URL())
	if *adminListen != "" {
		if err := srv.StartAdminOn(*adminListen); err != nil {
			return err
		}
		fmt.Fprintln(os.Stderr, "fakecoder: admin API on", srv.AdminURL()+"/fakecoder/admin/")
	}
	if *token == "" {
		fmt.Fprintln(os.Stderr, "fakecoder: no --token or CODER_TOKEN; generated one, see GET", srv.URL()+"/fakecoder/admin/config")
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	return nil
}
