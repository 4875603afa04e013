package providerconfig

import (
	"strings"
	"testing"
)

func TestMissingPermissionsMessageNamesEachAndTheFix(t *testing.T) {
	got := MissingPermissionsMessage(Needed)
	for _, want := range []string{
		"cannot delete cleanuprecords.coder.crossplane.io, list namespaces, watch namespaces:",
		"apply examples/install/rbac.yaml",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("message %q does not say %q", got, want)
		}
	}
}
