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

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/coder/coder/v2/codersdk"
	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/crossplane-contrib/provider-coder/test/framework/realcoder"
	"github.com/crossplane-contrib/provider-coder/test/infrastructure/fakecoder"
)

// A coderBed is one Coder deployment the provider and the bare client
// both drive.
type coderBed struct {
	name string
	// tag is the letter that keeps its namespaces apart.
	tag   byte
	url   string
	token string
	stop  func()
	// noKeys: the deployment serves no AI Gateway keys (the real Coder
	// without a licence), so only providers are measured on it.
	noKeys bool
}

func (c coderBed) sdk() *codersdk.Client {
	u, _ := url.Parse(c.url)
	cl := codersdk.New(u)
	cl.SetSessionToken(c.token)
	return cl
}

func startFake() (coderBed, error) {
	s := fakecoder.New(fakecoder.Options{})
	if err := s.Start(); err != nil {
		return coderBed{}, err
	}
	return coderBed{name: "fake", tag: 'f', url: s.URL(), token: s.Token(), stop: s.Close}, nil
}

// startReal starts the real Coder server. The test bed turns Coder's API
// rate limit off (its scenarios send hundreds of requests from one user);
// limited keeps Coder's default, 512 requests a minute per user and
// endpoint, as a production deployment has it.
func startReal(ctx context.Context, limited bool) (coderBed, error) {
	if err := realcoder.Available(); err != nil {
		return coderBed{}, err
	}
	o, name, tag := realcoder.Options{}, "real", byte('r')
	if limited {
		o.Env, name, tag = []string{"CODER_DANGEROUS_DISABLE_RATE_LIMITS=false"}, "real, rate-limited", 'l'
	}
	c, err := realcoder.Start(ctx, o)
	if err != nil {
		return coderBed{}, err
	}
	if !c.Licensed {
		fmt.Printf("%s Coder is unlicensed: keys skipped on it (set %s to a Coder licence file to measure them)\n", name, realcoder.EnvLicenseFile)
	}
	return coderBed{name: name, tag: tag, url: c.URL.String(), token: c.Token, stop: c.Stop, noKeys: !c.Licensed}, nil
}

const group = "ai.coder.m.crossplane.io"

// A kind is a managed kind as the benchmark creates it through the
// provider and, for the bare client, directly in Coder.
type kind struct {
	name string
	gvr  schema.GroupVersionResource
	// prep creates what every resource of the kind in ns refers to.
	prep   func(ns string) []*unstructured.Unstructured
	object func(ns, name string) *unstructured.Unstructured
	// bare creates and deletes one object in Coder as a plain client does;
	// remaining counts the objects whose name starts with prefix.
	bareCreate func(ctx context.Context, c *codersdk.Client, name string) (string, error)
	bareDelete func(ctx context.Context, c *codersdk.Client, id string) error
	remaining  func(ctx context.Context, c *codersdk.Client, prefix string) (int, error)
}

func managed(k, ns, name string, spec map[string]any) *unstructured.Unstructured {
	spec["providerConfigRef"] = map[string]any{"kind": "ProviderConfig", "name": "default"}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": group + "/v1alpha1", "kind": k,
		"metadata": map[string]any{"namespace": ns, "name": name},
		"spec":     spec,
	}}
}

var keys = kind{
	name: "AIGatewayKey",
	gvr:  schema.GroupVersionResource{Group: group, Version: "v1alpha1", Resource: "aigatewaykeys"},
	prep: func(string) []*unstructured.Unstructured { return nil },
	object: func(ns, name string) *unstructured.Unstructured {
		return managed("AIGatewayKey", ns, name, map[string]any{
			"forProvider":                map[string]any{},
			"writeConnectionSecretToRef": map[string]any{"name": name},
		})
	},
	bareCreate: func(ctx context.Context, c *codersdk.Client, name string) (string, error) {
		k, err := c.CreateAIGatewayKey(ctx, codersdk.CreateAIGatewayKeyRequest{Name: name})
		return k.ID.String(), err
	},
	bareDelete: func(ctx context.Context, c *codersdk.Client, id string) error {
		return c.DeleteAIGatewayKey(ctx, uuid.MustParse(id))
	},
	remaining: func(ctx context.Context, c *codersdk.Client, prefix string) (int, error) {
		list, err := c.ListAIGatewayKeys(ctx)
		n := 0
		for _, k := range list {
			if strings.Contains(k.Name, prefix) {
				n++
			}
		}
		return n, err
	},
}

// apiKey is a made-up provider API key: Coder stores it, nothing calls it.
const apiKey = "sk-bench-0000000000000000000000000000"

var providers = kind{
	name: "AIProvider",
	gvr:  schema.GroupVersionResource{Group: group, Version: "v1alpha1", Resource: "aiproviders"},
	prep: func(ns string) []*unstructured.Unstructured {
		s := &corev1.Secret{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"}, ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "api-key"}, StringData: map[string]string{"key": apiKey}}
		return []*unstructured.Unstructured{mustUnstructured(s)}
	},
	object: func(ns, name string) *unstructured.Unstructured {
		return managed("AIProvider", ns, name, map[string]any{"forProvider": map[string]any{
			"type": "openai", "baseURL": "https://api.openai.com/v1",
			"apiKeySecretRefs": []any{map[string]any{"name": "api-key", "key": "key"}},
		}})
	},
	bareCreate: func(ctx context.Context, c *codersdk.Client, name string) (string, error) {
		p, err := c.CreateAIProvider(ctx, codersdk.CreateAIProviderRequest{
			Type: codersdk.AIProviderTypeOpenAI, Name: name, Enabled: true,
			BaseURL: "https://api.openai.com/v1", APIKeys: []string{apiKey},
		})
		return p.ID.String(), err
	},
	bareDelete: func(ctx context.Context, c *codersdk.Client, id string) error {
		return c.DeleteAIProvider(ctx, id)
	},
	remaining: func(ctx context.Context, c *codersdk.Client, prefix string) (int, error) {
		list, err := c.AIProviders(ctx)
		n := 0
		for _, p := range list {
			if strings.HasPrefix(p.Name, prefix) {
				n++
			}
		}
		return n, err
	},
}

// bareRun creates n objects of k in Coder with 8 requests in flight, then
// deletes them and checks that none is left, and returns both rates.
func bareRun(ctx context.Context, c *codersdk.Client, k kind, prefix string, n int) (creates, deletes float64, err error) {
	ids := make([]string, n)
	start := time.Now()
	if err := parallel(n, 8, func(i int) error {
		id, err := k.bareCreate(ctx, c, fmt.Sprintf("%s-%d", prefix, i))
		ids[i] = id
		return err
	}); err != nil {
		return 0, 0, err
	}
	creates = float64(n) / time.Since(start).Seconds()
	start = time.Now()
	if err := parallel(n, 8, func(i int) error { return k.bareDelete(ctx, c, ids[i]) }); err != nil {
		return 0, 0, err
	}
	left, err := k.remaining(ctx, c, prefix+"-")
	if err != nil {
		return 0, 0, err
	}
	if left != 0 {
		return 0, 0, fmt.Errorf("bare client: %d of %d objects left after their deletes", left, n)
	}
	return creates, float64(n) / time.Since(start).Seconds(), nil
}

// parallel runs do(0..n-1) with width calls at once and returns the first
// error.
func parallel(n, width int, do func(i int) error) error {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		next  = make(chan int)
	)
	for range width {
		wg.Go(func() {
			for i := range next {
				if err := do(i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return first
}
