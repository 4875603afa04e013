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

package apis_test

import (
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/crossplane-contrib/provider-coder/apis"
)

// How the provider's Go code parses a string field of a CRD.
const (
	// parsedAsDuration: metav1.Duration, which decodes with
	// time.ParseDuration. A value it cannot decode stops the provider's
	// typed informer for the whole kind, every tenant's objects with it.
	parsedAsDuration = "metav1.Duration (time.ParseDuration)"
	// parsedAsCoderURL: url.Parse in internal/clients/coder/transport.go.
	parsedAsCoderURL = "url.Parse, http or https with a host"
)

// parsedFields are the string fields of the CRDs that the provider's Go code
// parses, with how. Each must be validated at admission by a CEL rule or a
// pattern, in every CRD that has it.
var parsedFields = map[string]string{
	"spec.deletion.dependentTimeout":            parsedAsDuration,
	"spec.deletion.liveDependentTimeout":        parsedAsDuration,
	"spec.deletion.unreachableTimeout":          parsedAsDuration,
	"spec.deletion.grace.base":                  parsedAsDuration,
	"spec.deletion.grace.perDependent":          parsedAsDuration,
	"spec.deletion.grace.max":                   parsedAsDuration,
	"spec.forProvider.rotation.every":           parsedAsDuration,
	"spec.forProvider.rotation.settleWindow":    parsedAsDuration,
	"spec.forProvider.rotation.maxSettleWindow": parsedAsDuration,
	"spec.url": parsedAsCoderURL,
}

// durationRule is the rule every duration field carries: the syntax of
// time.ParseDuration, then a bound that is not negative. The pattern comes
// first so that a value CEL's duration() cannot parse fails the rule with
// its message instead of an evaluation error.
var durationRule = regexp.MustCompile(`^self\.matches\('([^']+)'\) && duration\(self\) >= duration\('0s'\)$`)

// durationLike are the endings of a field name that suggest a duration; such
// a field must be validated even before someone adds it to parsedFields.
var durationLike = []string{"timeout", "window", "interval", "every", "period", "after", "duration", "delay", "ttl", "deadline", "backoff"}

// leaf is a string field of a CRD's schema.
type leaf struct {
	crd, path string
	schema    apiextensionsv1.JSONSchemaProps
}

func TestEveryParsedStringFieldIsValidatedAtAdmission(t *testing.T) {
	seen := map[string]int{}
	for _, l := range crdStringFields(t) {
		how, parsed := parsedFields[l.path]
		validated := len(l.schema.XValidations) > 0 || l.schema.Pattern != ""
		switch {
		case parsed && !validated:
			t.Errorf("%s: %s is parsed as %s but has no CEL rule or pattern: a value the provider cannot use is stored", l.crd, l.path, how)
		case !parsed && !validated && looksLikeDuration(l):
			t.Errorf("%s: %s looks like a duration but has no CEL rule or pattern; validate it and name it in parsedFields", l.crd, l.path)
		}
		if parsed {
			seen[l.path]++
		}
		if how == parsedAsDuration {
			checkDurationRule(t, l)
		}
	}
	for path := range parsedFields {
		if seen[path] == 0 {
			t.Errorf("parsedFields names %s, which no CRD in package/crds has", path)
		}
	}
	t.Logf("%d parsed fields validated in %d places", len(parsedFields), sum(seen))
}

// TestEveryDurationOfTheGoTypesIsInParsedFields finds the duration fields
// from the Go types themselves, so a new one cannot be missed by a name the
// heuristic does not know.
func TestEveryDurationOfTheGoTypesIsInParsedFields(t *testing.T) {
	s := runtime.NewScheme()
	if err := apis.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	n := 0
	for gvk, typ := range s.AllKnownTypes() {
		if strings.HasSuffix(gvk.Kind, "List") || !strings.Contains(gvk.Group, "coder") {
			continue
		}
		for _, path := range durationPaths(typ, "") {
			n++
			if parsedFields[path] != parsedAsDuration {
				t.Errorf("%s: %s is a metav1.Duration; name it in parsedFields as %q and validate it", gvk.Kind, path, parsedAsDuration)
			}
		}
	}
	if n == 0 {
		t.Fatal("found no metav1.Duration field in the Go types")
	}
}

// TestDurationRuleAcceptsExactlyWhatParseDurationDecodes compares the
// rule's pattern against time.ParseDuration over every string of up to four
// characters of an alphabet of duration spellings, and some longer ones.
// The rule's bound, duration(self) >= duration('0s'), is CEL's own
// time.ParseDuration; a value past its range (about 2562047h) matches the
// pattern and is refused by that call, without the rule's message.
func TestDurationRuleAcceptsExactlyWhatParseDurationDecodes(t *testing.T) {
	re := durationPattern(t, crdStringFields(t))
	alphabet := []string{"0", "1", "9", ".", "-", "+", " ", "s", "m", "h", "n", "u", "µ", "μ", "d", "e"}
	corpus := []string{"", "1h30m", "1.5h", "90m0.5s", "2h45m10.5s", "1d", "1w", "P1D", "1e3s", "300ms", "1h-30m", "1hour", "1H", "1ns1us1µs1μs1ms1s1m1h"}
	var grow func(prefix string, n int)
	grow = func(prefix string, n int) {
		corpus = append(corpus, prefix)
		if n == 0 {
			return
		}
		for _, c := range alphabet {
			grow(prefix+c, n-1)
		}
	}
	grow("", 4)
	mismatches := 0
	for _, s := range corpus {
		d, err := time.ParseDuration(s)
		decodes := err == nil
		if admitted := re.MatchString(s); admitted != decodes && mismatches < 10 {
			mismatches++
			t.Errorf("%q: admitted=%v, but time.ParseDuration gives %v, %v", s, admitted, d, err)
		}
	}
	t.Logf("%d strings compared", len(corpus))
}

// TestCoderURLRuleRefusesWhatTheProviderCannotUse compares the URL rule's
// patterns with what the provider's parseURL (url.Parse) refuses besides
// the scheme and host, which isURL and url() check: user credentials, a
// query and a fragment. The API server's own checks run in the e2e suite.
func TestCoderURLRuleRefusesWhatTheProviderCannotUse(t *testing.T) {
	res := urlPatterns(t)
	corpus := []string{
		"https://coder.example.com", "https://coder.example.com/", "http://127.0.0.1:3000/coder",
		"https://coder.example.com/?", "https://coder.example.com/#", "https://coder.example.com/@team",
		"https://coder.example.com/a@b/c", "HTTPS://Coder.Example.com", "https://coder.example.com:8443/x/y",
		"https://u:p@coder.example.com", "https://u@coder.example.com/", "https://a@b@coder.example.com",
		"https://coder.example.com?x=1", "https://coder.example.com/?x", "https://coder.example.com/??",
		"https://coder.example.com/#f", "https://coder.example.com/##", "https://coder.example.com/?#f",
		"https://coder.example.com/#?x", "https://coder.example.com/#@x", "https://coder.example.com?@x",
	}
	for _, s := range corpus {
		u, err := url.Parse(s)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		unusable := u.User != nil || u.RawQuery != "" || u.Fragment != ""
		refused := false
		for _, re := range res {
			refused = refused || re.MatchString(s)
		}
		if refused != unusable {
			t.Errorf("%q: admission refuses it: %v; the provider refuses it: %v", s, refused, unusable)
		}
	}
}

// urlRule is the rule that refuses what parseURL refuses besides the scheme
// and host.
var urlRule = regexp.MustCompile(`^!self\.matches\('([^']+)'\) && !self\.matches\('([^']+)'\) && !self\.matches\('([^']+)'\)$`)

// urlPatterns are the patterns of the URL rule, the same in every CRD.
func urlPatterns(t *testing.T) []*regexp.Regexp {
	t.Helper()
	found := map[string][]*regexp.Regexp{}
	for _, l := range crdStringFields(t) {
		if parsedFields[l.path] != parsedAsCoderURL {
			continue
		}
		var m []string
		for _, r := range l.schema.XValidations {
			if mm := urlRule.FindStringSubmatch(r.Rule); mm != nil {
				m = mm
			}
		}
		if m == nil {
			t.Errorf("%s: %s has no rule of the form %s", l.crd, l.path, urlRule)
			continue
		}
		found[strings.Join(m[1:], " ")] = []*regexp.Regexp{regexp.MustCompile(m[1]), regexp.MustCompile(m[2]), regexp.MustCompile(m[3])}
	}
	if len(found) != 1 {
		t.Fatalf("want one URL rule across the CRDs, got %d", len(found))
	}
	for _, res := range found {
		return res
	}
	return nil
}

// checkDurationRule checks that a duration field has exactly the duration
// rule, with a message that names the field.
func checkDurationRule(t *testing.T, l leaf) {
	t.Helper()
	for _, r := range l.schema.XValidations {
		if durationRule.MatchString(r.Rule) {
			if !strings.HasPrefix(r.Message, l.path+" must be a duration") {
				t.Errorf("%s: %s's rule message %q does not start with %q", l.crd, l.path, r.Message, l.path+" must be a duration")
			}
			return
		}
	}
	t.Errorf("%s: %s has no rule of the form %s", l.crd, l.path, durationRule)
}

// durationPattern is the one pattern of every duration rule.
func durationPattern(t *testing.T, leaves []leaf) *regexp.Regexp {
	t.Helper()
	patterns := map[string]bool{}
	for _, l := range leaves {
		for _, r := range l.schema.XValidations {
			if m := durationRule.FindStringSubmatch(r.Rule); m != nil {
				patterns[m[1]] = true
			}
		}
	}
	if len(patterns) != 1 {
		t.Fatalf("want one duration pattern across the CRDs, got %v", patterns)
	}
	for p := range patterns {
		return regexp.MustCompile(p)
	}
	return nil
}

// durationWords in a description suggest a duration too.
var durationWords = []string{"how long", "duration", "timeout"}

// looksLikeDuration is whether a string field's name or description
// suggests a duration; a timestamp is no duration.
func looksLikeDuration(l leaf) bool {
	if l.schema.Format == "date-time" {
		return false
	}
	name := strings.ToLower(l.path[strings.LastIndex(l.path, ".")+1:])
	desc := strings.ToLower(l.schema.Description)
	return slices.ContainsFunc(durationLike, func(s string) bool { return strings.HasSuffix(name, s) }) ||
		slices.ContainsFunc(durationWords, func(s string) bool { return strings.Contains(desc, s) })
}

// crdStringFields are the string fields of every CRD in package/crds.
func crdStringFields(t *testing.T) []leaf {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "package", "crds", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRDs in package/crds (run make generate): %v", err)
	}
	var out []leaf
	for _, f := range files {
		crd := readCRD(t, f)
		for _, v := range crd.Spec.Versions {
			walk(crd.Name, "", *v.Schema.OpenAPIV3Schema, &out)
		}
	}
	return out
}

func readCRD(t *testing.T, file string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal(b, crd); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return crd
}

func walk(crd, path string, s apiextensionsv1.JSONSchemaProps, out *[]leaf) {
	if s.Type == "string" {
		*out = append(*out, leaf{crd: crd, path: path, schema: s})
	}
	for name, p := range s.Properties {
		walk(crd, strings.TrimPrefix(path+"."+name, "."), p, out)
	}
	if s.Items != nil && s.Items.Schema != nil {
		walk(crd, path+"[]", *s.Items.Schema, out)
	}
}

var durationType = reflect.TypeOf(metav1.Duration{})

// durationPaths are the JSON paths of the metav1.Duration fields of typ.
func durationPaths(typ reflect.Type, path string) []string {
	for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Map {
		typ = typ.Elem()
	}
	if typ == durationType {
		return []string{path}
	}
	if typ.Kind() != reflect.Struct || typ.PkgPath() == "k8s.io/apimachinery/pkg/apis/meta/v1" {
		return nil
	}
	var out []string
	for i := range typ.NumField() {
		f := typ.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		child := path
		if name != "" && name != "-" {
			child = strings.TrimPrefix(path+"."+name, ".")
		}
		if name == "-" {
			continue
		}
		out = append(out, durationPaths(f.Type, child)...)
	}
	return out
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
