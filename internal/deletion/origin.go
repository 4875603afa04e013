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

package deletion

import (
	clusterv1alpha1 "github.com/crossplane-contrib/provider-coder/apis/cluster/v1alpha1"
)

// An Origin is where a create is sent, and so where its object lives: the
// Coder deployment, and the ProviderConfig with the canonical URL it named.
// A deployment id is only what a server says of itself (buildinfo is
// public, and a staging Coder restored from production's database says
// production's), so the URL and the ProviderConfig are part of it: a
// tenant's server claiming the platform's deployment id is still another
// origin.
type Origin struct {
	DeploymentID string
	// ProviderConfig is zero on a record written before records named one.
	ProviderConfig clusterv1alpha1.RecordedProviderConfig
}

// originOf is where rec says its object was made.
func originOf(rec *clusterv1alpha1.CleanupRecord) Origin {
	o := Origin{DeploymentID: rec.Spec.DeploymentID}
	if pc := rec.Spec.ProviderConfig; pc != nil {
		o.ProviderConfig = *pc
	}
	return o
}

// Legacy reports whether o is a record's origin that names no
// ProviderConfig (written by an earlier release).
func (o Origin) Legacy() bool { return o.ProviderConfig == clusterv1alpha1.RecordedProviderConfig{} }

// Spec is o's ProviderConfig as a record's spec holds it.
func (o Origin) Spec() *clusterv1alpha1.RecordedProviderConfig {
	if o.Legacy() {
		return nil
	}
	pc := o.ProviderConfig
	return &pc
}

// SameCoder reports whether a client at now answers for what was made at
// o: the same deployment and, where o names one, the same canonical URL.
// Only then does its "gone" count, and only then may it delete by id.
func (o Origin) SameCoder(now Origin) bool {
	return o.DeploymentID != "" && o.DeploymentID == now.DeploymentID &&
		(o.Legacy() || o.ProviderConfig.URL == now.ProviderConfig.URL)
}

// MadeBy reports whether now is the ProviderConfig that made o, still
// reaching the same Coder: only its credentials may delete an object found
// by a name that its owner does not derive from its UID.
func (o Origin) MadeBy(now Origin) bool {
	a, b := o.ProviderConfig, now.ProviderConfig
	return !o.Legacy() && o.SameCoder(now) && a.Group == b.Group && a.Kind == b.Kind && a.Namespace == b.Namespace && a.Name == b.Name
}

// ByName reports whether a client at now may find, and delete, what was
// made at o by a name its owner chose (an AIProvider's), not only by
// recorded id or UID-derived name: it is the ProviderConfig that made it,
// or, for a record that names none, one of the same deployment.
func ByName(o, now Origin) bool { return o.MadeBy(now) || (o.Legacy() && o.SameCoder(now)) }

// String is o as the messages of conditions and events name it.
func (o Origin) String() string {
	if o.Legacy() {
		return "deployment " + o.DeploymentID
	}
	pc := o.ProviderConfig
	name := pc.Name
	if pc.Namespace != "" {
		name = pc.Namespace + "/" + name
	}
	return "deployment " + o.DeploymentID + " at " + pc.URL + " (" + pc.Kind + " " + name + ")"
}

// An otherDeploymentError says that a resource's object lives in another
// Coder (deployment or URL) or was made through another ProviderConfig
// than the resource reaches now.
type otherDeploymentError struct{ Recorded, Now Origin }

func (e *otherDeploymentError) Error() string {
	return "the cleanup record names " + e.Recorded.String() +
		", which made the object, but the resource now reaches " + e.Now.String() +
		": nothing is created or deleted for this resource until its ProviderConfig (or providerConfigRef) reaches the Coder of the record again" +
		"; a deleting resource is released without delete once the hold's bounds pass, counted, and its record stays for the sweep of that Coder"
}
