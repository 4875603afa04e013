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

package aiprovider

import (
	"regexp"
	"strings"

	"github.com/coder/coder/v2/codersdk"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
)

// specFields maps the fields of Coder's validation errors to the spec fields
// a user edits.
var specFields = map[string]string{
	"type":                       "spec.forProvider.type",
	"name":                       "spec.forProvider.name",
	"display_name":               "spec.forProvider.displayName",
	"icon":                       "spec.forProvider.icon",
	"enabled":                    "spec.forProvider.enabled",
	"base_url":                   "spec.forProvider.baseURL",
	"api_keys":                   fieldAPIKeys,
	"settings":                   "spec.forProvider.bedrock",
	"settings.region":            "spec.forProvider.bedrock.region",
	"settings.model":             "spec.forProvider.bedrock.model",
	"settings.small_fast_model":  "spec.forProvider.bedrock.smallFastModel",
	"settings.protocol":          "spec.forProvider.bedrock.protocol",
	"settings.role_arn":          "spec.forProvider.bedrock.roleARN",
	"settings.access_key":        fieldAccessKeyID,
	"settings.access_key_secret": fieldSecretAccessKey,
	// Coder generates it; the provider never sends one.
	"settings.external_id": "status.atProvider.bedrock.externalID",
}

// apiKeyEntry matches "api_keys[2]" and "api_keys[2].api_key": the keys are
// sent in the order of apiKeySecretRefs, so the index is the reference's.
var apiKeyEntry = regexp.MustCompile(`^api_keys(\[\d+\])(\.[a-z_]+)?$`)

// SpecField is the spec field a Coder validation error's field stands for.
// Unknown fields are returned as they are.
func SpecField(coderField string) string {
	if f, ok := specFields[coderField]; ok {
		return f
	}
	if m := apiKeyEntry.FindStringSubmatch(coderField); m != nil {
		return fieldAPIKeys + m[1]
	}
	return coderField
}

// InvalidSpec is the error for a spec Coder would refuse, naming each spec
// field and what is wrong with it, so the Synced condition says what to fix.
// Validation details never contain key material: codersdk describes keys,
// it does not quote them.
func InvalidSpec(vs []codersdk.ValidationError, nameFromMetadata bool) error {
	parts := make([]string, 0, len(vs))
	for _, v := range vs {
		f := SpecField(v.Field)
		if v.Field == "name" && nameFromMetadata {
			f += " (defaults to metadata.name)"
		}
		parts = append(parts, f+": "+v.Detail)
	}
	return errors.New(errInvalidSpec + ": " + strings.Join(parts, "; "))
}
