// Package argocdrun runs provider-coder's Argo CD health checks
// (examples/argocd/argocd-cm.yaml) through Argo CD's own code, at the version
// its go.mod requires, on the samples in ../testdata. It is a module of its
// own so that Argo CD's dependencies stay out of the provider's, and it reads
// files only: the samples and their expected health are written by
// test/argocd in the provider's module (go test ./test/argocd -update).
package argocdrun
