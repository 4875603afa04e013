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

package credentials

import (
	"k8s.io/apimachinery/pkg/types"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"

	"github.com/crossplane-contrib/provider-coder/internal/providerconfig"
)

// A Config is what the decision needs to know of one ProviderConfig.
type Config struct {
	Ref providerconfig.Ref
	// Secrets the ProviderConfig reads: its token Secret and CA Secret.
	Secrets []types.NamespacedName
	// Deleting: the ProviderConfig has a deletion timestamp.
	Deleting bool
	// Holding: it still carries the hold finalizer, so its dependents may
	// still need its credentials to delete their objects in Coder.
	Holding bool
}

// ConfigOf is the decision's view of a ProviderConfig of any kind.
func ConfigOf(pc providerconfig.Object) Config {
	c := Config{
		Ref:      providerconfig.RefOfConfig(pc),
		Deleting: pc.GetDeletionTimestamp() != nil,
		Holding:  meta.FinalizerExists(pc, providerconfig.HoldFinalizer),
	}
	for _, s := range providerconfig.ConnectionOf(pc).Secrets() {
		c.Secrets = append(c.Secrets, s.NamespacedName())
	}
	return c
}

// released reports whether a ProviderConfig no longer needs its Secrets: it
// is being deleted and its hold has let go.
func (c Config) released() bool { return c.Deleting && !c.Holding }

// NeededBy reports whether the Secret must keep the credentials finalizer:
// it must while some unreleased ProviderConfig, of any kind, reads it as
// its token or CA Secret. It returns the first such ProviderConfig, for the
// log.
func NeededBy(secret types.NamespacedName, configs []Config) (providerconfig.Ref, bool) {
	for _, c := range configs {
		if c.released() {
			continue
		}
		for _, s := range c.Secrets {
			if s == secret {
				return c.Ref, true
			}
		}
	}
	return providerconfig.Ref{}, false
}
