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

// Command argocd is the part of Argo CD's multi-call binary that
// test/argocdsync runs: the application controller, the repo server, and
// the Git credential helper the repo server hands to git. It runs Argo CD's
// own commands, unchanged, chosen by ARGOCD_BINARY_NAME as Argo CD's binary
// chooses them; leaving out the API server, the CLI, the ApplicationSet and
// notification controllers and Dex halves the cold build
// (cluster/local/build-argocd.sh).
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"k8s.io/klog/v2"

	appcontroller "github.com/argoproj/argo-cd/v3/cmd/argocd-application-controller/commands"
	gitaskpass "github.com/argoproj/argo-cd/v3/cmd/argocd-git-ask-pass/commands"
	reposerver "github.com/argoproj/argo-cd/v3/cmd/argocd-repo-server/commands"
	"github.com/argoproj/argo-cd/v3/common"
	"github.com/argoproj/argo-cd/v3/util/log"
)

// commands are the commands this binary runs, by the name Argo CD's binary
// knows them by.
var commands = map[string]func() *cobra.Command{
	common.CommandApplicationController: appcontroller.NewCommand,
	common.CommandRepoServer:            reposerver.NewCommand,
	common.CommandGitAskPass:            gitaskpass.NewCommand,
}

func main() {
	// As Argo CD's main: klog through Argo CD's logger. Its main also turns
	// off gRPC's SRV lookups, which gRPC's grpclb balancer turns on when it
	// is linked in; these three commands do not link it, so the lookups are
	// off already (and grpc.DisableSRVLookups panics to say so).
	klog.SetLogger(log.NewLogrusLogger(log.NewWithCurrentConfig()))

	name := filepath.Base(os.Args[0])
	if v := os.Getenv("ARGOCD_BINARY_NAME"); v != "" {
		name = v
	}
	newCommand, ok := commands[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "%s: this Argo CD build runs only %s, %s and %s (set ARGOCD_BINARY_NAME)\n",
			name, common.CommandApplicationController, common.CommandRepoServer, common.CommandGitAskPass)
		os.Exit(2)
	}
	if err := newCommand().Execute(); err != nil {
		os.Exit(1)
	}
}
