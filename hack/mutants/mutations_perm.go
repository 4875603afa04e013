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

// permMutations break issue 51's least privilege in Coder: a ProviderConfig
// whose token lacks a kind's Coder permission names it, per kind, and a 403
// names the permission the call needs.
var permMutations = []Mutation{
	{
		// The condition says a kind is missing something but never which
		// permission: an operator cannot tell which role to give.
		Name: "coder-permissions-never-name-the-permission",
		File: "internal/providerconfig/permissions.go",
		Old:  "\t\tmissing = append(missing, fmt.Sprintf(\"%s needs %s (Coder's %s role)\", k.Kind, strings.Join(lacks, \", \"), leastRole(k.Needs)))\n",
		New:  "\t\tmissing = append(missing, fmt.Sprintf(\"%s needs more (Coder's %s role)\", k.Kind, leastRole(k.Needs)))\n",
		Pkgs: []string{"./internal/providerconfig/"},
		Run:  "^TestCoderPermissionsNameEachMissingPermissionAndItsKind$",
	},
	{
		// A 403 says only that a permission is missing, not which: the
		// refused create and the refused delete cannot be acted on.
		Name: "forbidden-never-names-the-permission",
		File: "internal/clients/coder/class.go",
		Old:  "\treturn noPermission(method, endpoint)\n",
		New:  "\treturn CauseNoPermission\n",
		Pkgs: []string{"./internal/clients/coder/"},
		Run:  "^(TestForbiddenNamesThePermissionTheCallNeedsAndTheLeastRole|TestErrorsAreClassifiedAndNeverCarrySecrets)$",
	},
}

func init() { Mutations = append(Mutations, permMutations...) }
