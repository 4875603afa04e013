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

package docs

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// A coderChart is what Coder's AI Gateway chart (helm/ai-gateway of the
// Coder module) does with its values, read from the chart.
type coderChart struct {
	// schema is values.schema.json, which helm checks the values against.
	schema map[string]any
	// command is the default of coder.command (values.yaml).
	command []string
	// args are the container's args (templates/_aigateway.tpl).
	args []string
	// address is the CODER_AI_GATEWAY_HTTP_ADDRESS the chart sets, and
	// keyFile the CODER_AI_GATEWAY_KEY_FILE it sets with aigateway.keySecret
	// (templates/_helpers.tpl, coder-ai-gateway.defaultEnv).
	address, keyFile string
}

var (
	chartArgs = regexp.MustCompile(`(?m)^args:\n((?:- \S+\n)+)`)
	chartEnv  = func(name string) *regexp.Regexp {
		return regexp.MustCompile(`- name: ` + name + `\n\s+value: (\S+)`)
	}
)

// loadCoderChart reads the chart's facts; a chart that no longer has them
// fails the test, so that it is updated rather than passing blind.
func loadCoderChart(t *testing.T) coderChart {
	t.Helper()
	dir := filepath.Join(coderModuleDir(t), "helm", "ai-gateway")
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var c coderChart
	if err := json.Unmarshal(read("values.schema.json"), &c.schema); err != nil {
		t.Fatalf("helm/ai-gateway/values.schema.json: %v", err)
	}
	var values struct {
		Coder struct{ Command []string } `json:"coder"`
	}
	if err := yaml.Unmarshal(read("values.yaml"), &values); err != nil || len(values.Coder.Command) == 0 {
		t.Fatalf("helm/ai-gateway/values.yaml has no coder.command (%v)", err)
	}
	c.command = values.Coder.Command
	m := chartArgs.FindSubmatch(read(filepath.Join("templates", "_aigateway.tpl")))
	if m == nil {
		t.Fatal("helm/ai-gateway/templates/_aigateway.tpl sets no args:")
	}
	for _, l := range strings.Split(strings.TrimSpace(string(m[1])), "\n") {
		c.args = append(c.args, strings.TrimPrefix(l, "- "))
	}
	helpers := read(filepath.Join("templates", "_helpers.tpl"))
	for name, into := range map[string]*string{"CODER_AI_GATEWAY_HTTP_ADDRESS": &c.address, "CODER_AI_GATEWAY_KEY_FILE": &c.keyFile} {
		m := chartEnv(name).FindSubmatch(helpers)
		if m == nil {
			t.Fatalf("helm/ai-gateway/templates/_helpers.tpl no longer sets %s", name)
		}
		*into = string(m[1])
	}
	return c
}

// container is the gateway container the chart renders from a reader's
// values: the chart's command, args and env, then the reader's coder.env
// (which the chart renders after its own), and the key Secret's mount.
func (c coderChart) container(values map[string]any) (corev1.Container, error) {
	var v struct {
		Coder struct {
			Command      []string             `json:"command"`
			Env          []corev1.EnvVar      `json:"env"`
			VolumeMounts []corev1.VolumeMount `json:"volumeMounts"`
		} `json:"coder"`
		AIGateway struct {
			KeySecret struct{ Name string } `json:"keySecret"`
		} `json:"aigateway"`
	}
	b, _ := json.Marshal(values)
	if err := json.Unmarshal(b, &v); err != nil {
		return corev1.Container{}, fmt.Errorf("values the chart cannot read: %w", err)
	}
	out := corev1.Container{Command: c.command, Args: c.args, VolumeMounts: v.Coder.VolumeMounts,
		Env: []corev1.EnvVar{{Name: "CODER_AI_GATEWAY_HTTP_ADDRESS", Value: c.address}}}
	if len(v.Coder.Command) > 0 {
		out.Command = v.Coder.Command
	}
	if v.AIGateway.KeySecret.Name != "" {
		out.Env = append(out.Env, corev1.EnvVar{Name: "CODER_AI_GATEWAY_KEY_FILE", Value: c.keyFile})
		out.VolumeMounts = append(out.VolumeMounts, corev1.VolumeMount{Name: "ai-gateway-auth", MountPath: filepath.Dir(c.keyFile)})
	}
	out.Env = append(out.Env, v.Coder.Env...)
	return out, nil
}

// schemaProblems are where v breaks the JSON schema s (a part of root):
// unknown keys where additionalProperties is false, wrong types, values
// outside an enum. It checks what a reader's values can break; required
// keys are left out, since helm merges the chart's defaults first.
func schemaProblems(path string, v any, s, root map[string]any) []string {
	if ref, ok := s["$ref"].(string); ok {
		return schemaProblems(path, v, resolveRef(root, ref), root)
	}
	var out []string
	for _, sub := range asSchemas(s["allOf"]) {
		out = append(out, schemaProblems(path, v, sub, root)...)
	}
	if alts := asSchemas(s["oneOf"]); len(alts) > 0 && !slices.ContainsFunc(alts, func(a map[string]any) bool {
		return len(schemaProblems(path, v, a, root)) == 0
	}) {
		out = append(out, fmt.Sprintf("%s: matches none of its schema's alternatives", path))
	}
	if enum, ok := s["enum"].([]any); ok && !slices.Contains(enum, v) {
		out = append(out, fmt.Sprintf("%s: %v is not one of %v", path, v, enum))
	}
	if want := schemaTypes(s["type"]); len(want) > 0 && !typeAllowed(want, jsonType(v)) {
		return append(out, fmt.Sprintf("%s: a %s, where the chart takes %s", path, jsonType(v), strings.Join(want, " or ")))
	}
	switch v := v.(type) {
	case map[string]any:
		out = append(out, objectProblems(path, v, s, root)...)
	case []any:
		if items, ok := s["items"].(map[string]any); ok {
			for i, e := range v {
				out = append(out, schemaProblems(fmt.Sprintf("%s[%d]", path, i), e, items, root)...)
			}
		}
	}
	return out
}

func objectProblems(path string, v, s, root map[string]any) []string {
	props, _ := s["properties"].(map[string]any)
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []string
	for _, k := range keys {
		at := strings.TrimPrefix(path+"."+k, ".")
		switch sub, known := props[k].(map[string]any); {
		case known:
			out = append(out, schemaProblems(at, v[k], sub, root)...)
		case s["additionalProperties"] == false:
			out = append(out, fmt.Sprintf("%s: no such value in the chart (values.schema.json allows no other keys here)", at))
		default:
			if extra, ok := s["additionalProperties"].(map[string]any); ok {
				out = append(out, schemaProblems(at, v[k], extra, root)...)
			}
		}
	}
	return out
}

// resolveRef follows a local reference, #/definitions/name.
func resolveRef(root map[string]any, ref string) map[string]any {
	node := any(root)
	for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
		m, _ := node.(map[string]any)
		node = m[part]
	}
	s, _ := node.(map[string]any)
	return s
}

func asSchemas(v any) []map[string]any {
	list, _ := v.([]any)
	var out []map[string]any
	for _, e := range list {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// schemaTypes are the JSON types a schema's type allows.
func schemaTypes(v any) []string {
	switch t := v.(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, e := range t {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// typeAllowed says whether a value of type got meets a schema that allows
// want: an integer is a number too.
func typeAllowed(want []string, got string) bool {
	return slices.Contains(want, got) || got == "integer" && slices.Contains(want, "number")
}

// jsonType is the JSON type of a value decoded from YAML; a whole number
// is an integer.
func jsonType(v any) string {
	switch n := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case float64:
		if n == float64(int64(n)) {
			return "integer"
		}
		return "number"
	case int64, int:
		return "integer"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}
