// Command coder is Coder's enterprise server for provider-coder's TEST BED
// ONLY. It is enterprise/cmd/coder/main.go plus one thing: it trusts a
// license signing key whose private half is published below, so that tests
// can issue themselves a premium license (the AI Gateway keys API answers 403
// without one). Coder's own test suite does the same in
// enterprise/coderd/coderdenttest.
//
// Never run this binary for anything but tests: anyone can sign a license it
// accepts.
//
//	coder server ...                    the enterprise CLI, unchanged
//	coder test-license [-users N]       print a premium license JWT signed by the test key
package main

import (
	"crypto/ed25519"
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"time"
	_ "time/tzdata"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/golang-jwt/jwt/v4"
	"github.com/google/uuid"

	"github.com/coder/coder/v2/agent/agentexec"
	_ "github.com/coder/coder/v2/buildinfo/resources"
	"github.com/coder/coder/v2/codersdk"
	entcli "github.com/coder/coder/v2/enterprise/cli"
	"github.com/coder/coder/v2/enterprise/coderd"
	"github.com/coder/coder/v2/enterprise/coderd/license"
)

// testKeyID names the test key in licenses' JOSE header. It is distinct from
// Coder's real key ids, so a real license still verifies with the real key.
const testKeyID = "provider-coder-test-only"

// testKeySeed derives the TEST-ONLY signing key. It is public on purpose: the
// key is worthless outside this binary, which exists only for tests.
const testKeySeed = "provider-coder TEST-ONLY license signing key; public, never trust outside tests"

func testPrivateKey() ed25519.PrivateKey {
	seed := sha256.Sum256([]byte(testKeySeed))
	return ed25519.NewKeyFromSeed(seed[:])
}

func main() {
	coderd.Keys[testKeyID] = testPrivateKey().Public().(ed25519.PublicKey)

	if len(os.Args) > 1 && os.Args[1] == "test-license" {
		if err := printLicense(os.Args[2:]); err != nil {
			_, _ = fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}

	// From here on exactly enterprise/cmd/coder/main.go.
	if len(os.Args) > 1 && os.Args[1] == "agent-exec" {
		err := agentexec.CLI()
		_, _ = fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	tea.InitTerminal()
	var rootCmd entcli.RootCmd
	rootCmd.RunWithSubcommands(rootCmd.EnterpriseSubcommands())
}

// printLicense prints a premium license with the AI Gateway (aibridge)
// feature, shaped as coderdenttest.GenerateLicense shapes its licenses.
func printLicense(args []string) error {
	fs := flag.NewFlagSet("test-license", flag.ContinueOnError)
	users := fs.Int64("users", 100, "user_limit of the license")
	valid := fs.Duration("valid", 30*24*time.Hour, "how long the license is valid")
	if err := fs.Parse(args); err != nil {
		return err
	}
	now := time.Now()
	claims := &license.Claims{
		RegisteredClaims: jwt.RegisteredClaims{
			ID:        uuid.NewString(),
			Issuer:    "provider-coder-test-bed",
			NotBefore: jwt.NewNumericDate(now.Add(-time.Minute)),
			IssuedAt:  jwt.NewNumericDate(now.Add(-time.Minute)),
			ExpiresAt: jwt.NewNumericDate(now.Add(*valid)),
		},
		LicenseExpires: jwt.NewNumericDate(now.Add(*valid)),
		AccountType:    license.AccountTypeSalesforce,
		AccountID:      "provider-coder-test-bed",
		Version:        license.CurrentVersion,
		FeatureSet:     codersdk.FeatureSetPremium,
		Features: license.Features{
			codersdk.FeatureAIBridge:  1,
			codersdk.FeatureUserLimit: *users,
		},
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodEdDSA, claims)
	tok.Header[license.HeaderKeyID] = testKeyID
	signed, err := tok.SignedString(testPrivateKey())
	if err != nil {
		return fmt.Errorf("cannot sign test license: %w", err)
	}
	_, err = fmt.Println(signed)
	return err
}
