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
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/crossplane-contrib/provider-coder/test/framework/docblocks"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/crossplane-contrib/provider-coder/test/framework/crds"
)

// gatewayPages are the pages that tell a reader how to run AI Gateway
// replicas.
var gatewayPages = []string{
	"docs/how-to/keys-and-gateway-replicas.md",
	"docs/how-to/rotate-gateway-keys.md",
}

// helmValues is how a page's marker starts for a block of values for
// Coder's AI Gateway chart: <!-- docs-test: skip (Helm values ...) -->.
const helmValues = "Helm values"

// TestTheGatewayManifestsOfTheDocsRunCodersCLI checks every workload and
// every block of Helm values on the gateway pages, skipped blocks
// included, against the Coder module of go.mod, without a cluster: the
// container runs `/opt/coder ai-gateway start` (the image's entrypoint is
// `coder server`), with only flags and variables the command has, one key
// source, a Coder URL and a listener a Service can reach; Helm values
// have only keys the chart's values.schema.json allows. A RoleBinding to
// a ServiceAccount of crossplane-system binds the provider's.
func TestTheGatewayManifestsOfTheDocsRunCodersCLI(t *testing.T) {
	cli, chart := loadCoderCLI(t), loadCoderChart(t)
	sa := boundServiceAccount(t, filepath.Join(crds.RepoRoot(), "examples", "install", "rbac.yaml"))
	var containers, values int
	for _, page := range gatewayPages {
		b, err := os.ReadFile(filepath.Join(crds.RepoRoot(), page))
		if err != nil {
			t.Fatal(err)
		}
		blocks, err := docblocks.Blocks(b)
		if err != nil {
			t.Fatalf("%s: %v", page, err)
		}
		for _, blk := range blocks {
			where := fmt.Sprintf("%s:%d", page, blk.Line)
			var problems []string
			switch {
			case blk.YAML() && strings.HasPrefix(blk.Marker.Arg, helmValues):
				values++
				problems = helmValuesProblems(blk.Text, chart, cli)
			case blk.YAML():
				objs := objects([]byte(blk.Text))
				for _, u := range objs {
					cs := podContainers(u)
					containers += len(cs)
					for _, c := range cs {
						problems = append(problems, containerProblems(c, cli)...)
					}
					problems = append(problems, bindingProblems(u, sa)...)
				}
				if len(objs) == 0 && looksLikeHelmValues(blk.Text) {
					problems = append(problems, "Helm values for the chart; mark them <!-- docs-test: skip ("+helmValues+", ...) -->, so that this test checks them")
				}
			}
			for _, p := range problems {
				t.Errorf("%s: %s", where, p)
			}
		}
	}
	t.Logf("%d gateway containers and %d blocks of Helm values checked", containers, values)
	if containers == 0 || values == 0 {
		t.Fatalf("found %d gateway containers and %d blocks of Helm values in %v; the pages show both", containers, values, gatewayPages)
	}
}

// helmValuesProblems checks a block of values for the chart: against its
// schema, then the container the chart renders from them.
func helmValuesProblems(text string, chart coderChart, cli coderCLI) []string {
	var values map[string]any
	if err := yaml.Unmarshal([]byte(text), &values); err != nil {
		return []string{fmt.Sprintf("Helm values that are not YAML: %v", err)}
	}
	problems := schemaProblems("", values, chart.schema, chart.schema)
	c, err := chart.container(values)
	if err != nil {
		return append(problems, err.Error())
	}
	return append(problems, containerProblems(c, cli)...)
}

// looksLikeHelmValues says whether a YAML block without objects holds
// values for the chart.
func looksLikeHelmValues(text string) bool {
	var m map[string]any
	if yaml.Unmarshal([]byte(text), &m) != nil {
		return false
	}
	_, gw := m["aigateway"]
	_, coder := m["coder"]
	return gw || coder
}

// podContainers are the containers of a workload or a Pod.
func podContainers(u *unstructured.Unstructured) []corev1.Container {
	path := []string{"spec", "template", "spec"}
	switch u.GetKind() {
	case "Pod":
		path = []string{"spec"}
	case "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job":
	default:
		return nil
	}
	spec, _, _ := unstructured.NestedMap(u.Object, path...)
	var ps corev1.PodSpec
	b, _ := json.Marshal(spec)
	if json.Unmarshal(b, &ps) != nil {
		return nil
	}
	return ps.Containers
}

// bindingProblems: a RoleBinding that names a ServiceAccount of
// crossplane-system must name the provider's, sa.
func bindingProblems(u *unstructured.Unstructured, sa string) []string {
	if u.GetKind() != "RoleBinding" && u.GetKind() != "ClusterRoleBinding" {
		return nil
	}
	var out []string
	subjects, _, _ := unstructured.NestedSlice(u.Object, "subjects")
	for _, s := range subjects {
		m, _ := s.(map[string]any)
		if m["kind"] == "ServiceAccount" && m["namespace"] == "crossplane-system" && m["name"] != sa {
			out = append(out, fmt.Sprintf("%s %s binds the ServiceAccount %v; the provider runs as %s (examples/install/rbac.yaml)", u.GetKind(), u.GetName(), m["name"], sa))
		}
	}
	return out
}

// containerProblems are why a container would not run a reachable
// `coder ai-gateway start`.
func containerProblems(c corev1.Container, cli coderCLI) []string {
	var out []string
	if !slices.Equal(c.Command, []string{cli.binary}) {
		out = append(out, fmt.Sprintf("container %q: command %q, want [%q]: the image's entrypoint runs `coder server`", c.Name, c.Command, cli.binary))
	}
	if len(c.Args) < 2 || c.Args[0] != "ai-gateway" || c.Args[1] != "start" {
		out = append(out, fmt.Sprintf("container %q: args %q, want them to start with [ai-gateway start]", c.Name, c.Args))
	}
	for _, a := range c.Args[min(2, len(c.Args)):] {
		if name, ok := flagName(a); ok && !cli.flags[name] {
			out = append(out, fmt.Sprintf("container %q: `coder ai-gateway start` has no flag --%s", c.Name, name))
		}
	}
	for _, e := range c.Env {
		if !cli.envs[e.Name] {
			out = append(out, fmt.Sprintf("container %q: `coder ai-gateway start` reads no variable %s", c.Name, e.Name))
		}
	}
	return append(out, settingProblems(c, cli)...)
}

// settingProblems are the settings `coder ai-gateway start` refuses to
// start without (one key source, a URL: resolveAIGatewayKey and
// ResolveClientConnection in aigatewaystart.go), and a listener bound to
// loopback, which a Service cannot reach.
func settingProblems(c corev1.Container, cli coderCLI) []string {
	var out []string
	_, key := setting(c, cli, "key")
	file, keyFile := setting(c, cli, "key-file")
	if key == keyFile {
		out = append(out, fmt.Sprintf("container %q: set exactly one of --key (%s) and --key-file (%s)", c.Name, cli.envOf["key"], cli.envOf["key-file"]))
	}
	if _, ok := setting(c, cli, "url"); !ok {
		out = append(out, fmt.Sprintf("container %q: no Coder URL: set %s or --url", c.Name, cli.envOf["url"]))
	}
	addr, ok := setting(c, cli, "http-address")
	if !ok {
		addr = cli.defaults["http-address"]
	}
	if loopback(addr) {
		out = append(out, fmt.Sprintf("container %q: it listens on %s, which a Service cannot reach; set %s=0.0.0.0:4001", c.Name, addr, cli.envOf["http-address"]))
	}
	if keyFile && file != "" && !slices.ContainsFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool {
		return strings.HasPrefix(file, strings.TrimSuffix(m.MountPath, "/")+"/")
	}) {
		out = append(out, fmt.Sprintf("container %q: the key file %s is in no volume it mounts", c.Name, file))
	}
	return out
}

// setting is an option's value, from a flag in the args or its variable;
// a variable from a Secret or ConfigMap is set, its value unknown.
func setting(c corev1.Container, cli coderCLI, flag string) (string, bool) {
	for i, a := range c.Args {
		if name, ok := flagName(a); ok && name == flag {
			if _, v, ok := strings.Cut(a, "="); ok {
				return v, true
			}
			if i+1 < len(c.Args) {
				return c.Args[i+1], true
			}
			return "", true
		}
	}
	for _, e := range c.Env {
		if e.Name == cli.envOf[flag] {
			return e.Value, true
		}
	}
	return "", false
}

// flagName is the name of an argument that is a flag: --name or --name=v.
func flagName(arg string) (string, bool) {
	if !strings.HasPrefix(arg, "-") {
		return "", false
	}
	name, _, _ := strings.Cut(strings.TrimLeft(arg, "-"), "=")
	return name, true
}

// loopback says whether a listen address takes connections only from its
// own host.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
