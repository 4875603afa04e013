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

// Package version is the provider's release version, stamped into the
// binary by the image build (`make xpkg VERSION=...`) with
// -ldflags=-X, so the version in a package, its image's labels and its
// provider's logs are one.
package version

// Version is the release this binary was built as; a build that did not
// stamp it (go build, go test, make run) is a development build.
var Version = "v0.0.0-dev"

// Path is the import path of Version for -ldflags=-X.
const Path = "github.com/crossplane-contrib/provider-coder/internal/version.Version"
