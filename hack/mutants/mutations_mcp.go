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

package main

// mcpMutations break issue 52's MCP server rules: no secret in status,
// drift put back, and a slug someone else made never adopted.
var mcpMutations = []Mutation{
	{
		// A Secret value in status: the fingerprint carries the API key
		// and the client secret as they are.
		Name: "mcp-secret-in-status",
		File: "internal/controller/mcpserver/desired.go",
		Old:  "\treturn FingerprintPrefix + hex.EncodeToString(h.Sum(nil))\n",
		New:  "\treturn FingerprintPrefix + c.APIKeyValue + c.OAuth2ClientSecret + hex.EncodeToString(h.Sum(nil))\n",
		Pkgs: []string{"./internal/controller/mcpserver/", "./test/e2e/"},
		Run:  "^(TestNoSecretInWhatIsPrintedOrKeptInStatus|TestCreateSendsTheSecretsAndKeepsOnlyTheirFingerprint|TestMCPServerOfEachAuthTypeIsCreatedAsSpecifiedAndDeleted)$",
	},
	{
		// Drift not put back: Update sends no PATCH.
		Name: "mcp-drift-not-put-back",
		File: "internal/controller/mcpserver/mcpserver.go",
		Old:  "\tif e.drift.UpToDate() {\n",
		New:  "\tif true || e.drift.UpToDate() {\n",
		Pkgs: []string{"./internal/controller/mcpserver/", "./test/e2e/"},
		Run:  "^(TestObserveSeesDriftAndUpdatePutsItBackInOnePatch|TestMCPServerDriftInCoderIsPutBackWithOnePatchPerDrift)$",
	},
	{
		// A slug someone else made adopted: a server (or provider) found by
		// its name is taken whether or not the resource's own recorded
		// create made it.
		Name: "mcp-taken-slug-adopted",
		File: "internal/deletion/named.go",
		Old:  "\tcase !attempt.IsZero() && ours:\n",
		New:  "\tcase found:\n",
		Pkgs: []string{"./internal/deletion/", "./internal/controller/mcpserver/"},
		Run:  "^(TestAnObjectFoundByNameIsAdoptedOnlyWhenTheRecordedLostCreateMadeIt|TestCreateOnASlugSomeoneElseMadeIsRefusedNotAdopted)$",
	},
	{
		// A create's answered id taken without a read that confirms it:
		// a server answering with someone else's id gets that server
		// patched and deleted as this resource's.
		Name: "mcp-create-answer-unread",
		File: "internal/controller/mcpserver/mcpserver.go",
		Old:  "\t\tif err == nil && read.Slug == asked && read.ID == got.ID {\n",
		New:  "\t\tif true || err == nil && read.Slug == asked && read.ID == got.ID {\n",
		Pkgs: []string{"./internal/controller/mcpserver/"},
		Run:  "^TestACreateAnswerNamingAnotherServerIsNotTakenForIt$",
	},
}

func init() { Mutations = append(Mutations, mcpMutations...) }
