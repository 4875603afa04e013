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
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
)

// testCLI stands for the Coder CLI in the table tests.
var testCLI = coderCLI{
	binary:   "/opt/coder",
	flags:    map[string]bool{"key": true, "key-file": true, "http-address": true, "url": true},
	envs:     map[string]bool{"CODER_AI_GATEWAY_KEY": true, "CODER_AI_GATEWAY_KEY_FILE": true, "CODER_AI_GATEWAY_HTTP_ADDRESS": true, "CODER_URL": true},
	envOf:    map[string]string{"key": "CODER_AI_GATEWAY_KEY", "key-file": "CODER_AI_GATEWAY_KEY_FILE", "http-address": "CODER_AI_GATEWAY_HTTP_ADDRESS", "url": "CODER_URL"},
	defaults: map[string]string{"http-address": "127.0.0.1:4001"},
}

func gateway(mod func(*corev1.Container)) corev1.Container {
	c := corev1.Container{
		Name: "gw", Command: []string{"/opt/coder"}, Args: []string{"ai-gateway", "start"},
		Env: []corev1.EnvVar{
			{Name: "CODER_URL", ValueFrom: &corev1.EnvVarSource{}},
			{Name: "CODER_AI_GATEWAY_KEY_FILE", Value: "/etc/gw/key"},
			{Name: "CODER_AI_GATEWAY_HTTP_ADDRESS", Value: "0.0.0.0:4001"},
		},
		VolumeMounts: []corev1.VolumeMount{{Name: "key", MountPath: "/etc/gw"}},
	}
	if mod != nil {
		mod(&c)
	}
	return c
}

func TestAGatewayContainerRunsAReachableCoderAIGatewayStart(t *testing.T) {
	cases := map[string]struct {
		c    corev1.Container
		want []string
	}{
		"a container the CLI runs": {c: gateway(nil)},
		"the image's entrypoint, coder server": {
			c:    gateway(func(c *corev1.Container) { c.Command = nil }),
			want: []string{`container "gw": command [], want ["/opt/coder"]: the image's entrypoint runs ` + "`coder server`"},
		},
		"another subcommand": {
			c:    gateway(func(c *corev1.Container) { c.Args = []string{"server"} }),
			want: []string{`container "gw": args ["server"], want them to start with [ai-gateway start]`},
		},
		"a flag the command lacks": {
			c:    gateway(func(c *corev1.Container) { c.Args = append(c.Args, "--coder-url=https://x") }),
			want: []string{`container "gw": ` + "`coder ai-gateway start`" + ` has no flag --coder-url`},
		},
		"a variable the command does not read": {
			c: gateway(func(c *corev1.Container) {
				c.Env = append(c.Env, corev1.EnvVar{Name: "CODER_AI_GATEWAY_URL", Value: "x"})
			}),
			want: []string{`container "gw": ` + "`coder ai-gateway start`" + ` reads no variable CODER_AI_GATEWAY_URL`},
		},
		"both key sources": {
			c:    gateway(func(c *corev1.Container) { c.Args = append(c.Args, "--key", "k") }),
			want: []string{`container "gw": set exactly one of --key (CODER_AI_GATEWAY_KEY) and --key-file (CODER_AI_GATEWAY_KEY_FILE)`},
		},
		"no Coder URL": {
			c:    gateway(func(c *corev1.Container) { c.Env = c.Env[1:] }),
			want: []string{`container "gw": no Coder URL: set CODER_URL or --url`},
		},
		"the default listener, on loopback": {
			c:    gateway(func(c *corev1.Container) { c.Env = c.Env[:2] }),
			want: []string{`container "gw": it listens on 127.0.0.1:4001, which a Service cannot reach; set CODER_AI_GATEWAY_HTTP_ADDRESS=0.0.0.0:4001`},
		},
		"a listener set by flag wins over none": {
			c: gateway(func(c *corev1.Container) { c.Env = c.Env[:2]; c.Args = append(c.Args, "--http-address=:4001") }),
		},
		"a key file outside every mount": {
			c:    gateway(func(c *corev1.Container) { c.VolumeMounts[0].MountPath = "/etc/g" }),
			want: []string{`container "gw": the key file /etc/gw/key is in no volume it mounts`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, containerProblems(tc.c, testCLI)); diff != "" {
				t.Errorf("containerProblems (-want +got):\n%s", diff)
			}
		})
	}
}

const testSchema = `{
  "type": "object", "additionalProperties": false,
  "properties": {
    "coder": {"type": "object", "additionalProperties": false, "properties": {
      "env": {"type": "array", "items": {"type": "object", "required": ["name"]}},
      "replicaCount": {"type": "integer"},
      "readinessProbe": {"$ref": "#/definitions/probe"}}},
    "service": {"type": "object", "properties": {"type": {"enum": ["ClusterIP", "LoadBalancer"]}}},
    "extraTemplates": {"type": "array", "items": {"oneOf": [{"type": "string"}, {"type": "object"}]}}
  },
  "definitions": {"probe": {"type": "object", "additionalProperties": false, "properties": {"enabled": {"type": "boolean"}}}}
}`

func TestHelmValuesMeetTheChartsSchema(t *testing.T) {
	var schema map[string]any
	if err := json.Unmarshal([]byte(testSchema), &schema); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		values string
		want   []string
	}{
		"known keys":     {values: `{"coder": {"env": [{"name": "CODER_URL"}], "replicaCount": 3, "readinessProbe": {"enabled": true}}}`},
		"an unknown key": {values: `{"aigateway": {"coderURL": "x"}}`, want: []string{"aigateway: no such value in the chart (values.schema.json allows no other keys here)"}},
		"an unknown nested key": {
			values: `{"coder": {"coderURL": "x"}}`,
			want:   []string{"coder.coderURL: no such value in the chart (values.schema.json allows no other keys here)"},
		},
		"an unknown key behind a reference": {
			values: `{"coder": {"readinessProbe": {"path": "/readyz"}}}`,
			want:   []string{"coder.readinessProbe.path: no such value in the chart (values.schema.json allows no other keys here)"},
		},
		"a wrong type":                     {values: `{"coder": {"replicaCount": "3"}}`, want: []string{"coder.replicaCount: a string, where the chart takes integer"}},
		"a value outside an enum":          {values: `{"service": {"type": "Ingress"}}`, want: []string{"service.type: Ingress is not one of [ClusterIP LoadBalancer]"}},
		"any key where others are allowed": {values: `{"service": {"port": 80}}`},
		"no alternative matches": {
			values: `{"extraTemplates": [3]}`,
			want:   []string{"extraTemplates[0]: matches none of its schema's alternatives"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var v map[string]any
			if err := json.Unmarshal([]byte(tc.values), &v); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, schemaProblems("", v, schema, schema)); diff != "" {
				t.Errorf("schemaProblems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTheChartRendersItsOwnListenerAndKeyFile(t *testing.T) {
	chart := coderChart{command: []string{"/opt/coder"}, args: []string{"ai-gateway", "start"}, address: "0.0.0.0:4001", keyFile: "/etc/coder/ai-gateway-auth/key"}
	values := map[string]any{
		"coder":     map[string]any{"env": []any{map[string]any{"name": "CODER_URL", "value": "https://coder.example.com"}}},
		"aigateway": map[string]any{"keySecret": map[string]any{"name": "gateway-key"}},
	}
	c, err := chart.container(values)
	if err != nil {
		t.Fatal(err)
	}
	if got := containerProblems(c, testCLI); len(got) != 0 {
		t.Errorf("the chart's container with a key Secret and CODER_URL: %v", got)
	}
	delete(values, "aigateway")
	c, err = chart.container(values)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`container "": set exactly one of --key (CODER_AI_GATEWAY_KEY) and --key-file (CODER_AI_GATEWAY_KEY_FILE)`}
	if diff := cmp.Diff(want, containerProblems(c, testCLI)); diff != "" {
		t.Errorf("the chart's container without a key source (-want +got):\n%s", diff)
	}
}

func TestALoopbackListenerIsToldFromARoutableOne(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:4001": true, "localhost:4001": true, "[::1]:4001": true,
		"0.0.0.0:4001": false, ":4001": false, "10.0.0.5:4001": false,
	} {
		if got := loopback(addr); got != want {
			t.Errorf("loopback(%q) = %v, want %v", addr, got, want)
		}
	}
}
