# provider-coder: `make run` tries it, `make test` proves it.
SHELL := /usr/bin/env bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

GO       ?= go
TOOL     := $(GO) tool -modfile=$(CURDIR)/tools/go.mod
# The checks build our packages with the race detector, as the tests do, so
# that a dependency compiles once for vet, the API docs and the tests
# (without it `go vet` alone compiled all 1,500 packages a second time:
# 524 CPU-s of a cold run, 159 with it).
CHECK_RACE := -race
APIDOCS  := $(GO) run $(CHECK_RACE) ./hack/apidocs -crds package/crds -out docs/reference/api.md
# Packages whose tests run with the race detector: everything with goroutines
# of our own (controllers, clients, the fake Coder, the scenario suites).
RACE_PKGS := ./internal/... ./test/...
# The scenario suites test/e2e and test/interleave run as this many shards
# (hack/shard), each a process with its own control plane, fake and real
# Coder and provider; every e2e shard runs the secret scan's scenario, so
# that each one's final scan has a key to look for.
SHARD            := $(GO) run ./hack/shard
E2E_SHARDS       ?= 3
INTERLEAVE_SHARDS ?= 2
E2E_EVERY_SHARD  := TestNoSecretAppearsInLogsEventsOrStatus
# Scenarios that measure the provider's own pace against a backlog the
# harness makes: they run after everything else, on a quiet machine, from
# the shards' test binary (a busy one cannot make the backlog in time).
E2E_ALONE        := TestANoisyNamespacesBacklogLeavesAnotherNamespacesNewKeyReadyInSeconds
# The longest of the other packages start first, so they do not start last.
SLOW_PKGS        := ./test/crossplane ./test/docs ./test/argocdsync

.PHONY: help
help: ## Show the targets.
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-16s %s\n", $$1, $$2}'

.PHONY: generate
generate: ## Regenerate deepcopy, managed-resource methods, package/crds and docs/reference/api.md from the API types.
	rm -rf package/crds
	cd apis && $(GO) generate ./...
	$(APIDOCS)

.PHONY: docs
docs: ## Regenerate the API reference (docs/reference/api.md) from package/crds.
	$(APIDOCS)

.PHONY: check-generate
check-generate: generate ## Fail when generated files differ from the committed ones.
	@if [ -n "$$(git status --porcelain -- apis package/crds docs/reference/api.md)" ]; then \
		echo "Generated files are out of date; run 'make generate' and commit:"; \
		git status --porcelain -- apis package/crds docs/reference/api.md; exit 1; fi

.PHONY: controlplane
controlplane: ## Build (once, cached outside the checkout) etcd, kube-apiserver, kube-controller-manager and kubectl.
	cluster/local/build.sh

.PHONY: coder
coder: postgres ## Build (once per version, cached outside the checkout) the test-only Coder server the tests run.
	cluster/local/build-coder.sh

.PHONY: crossplane
crossplane: ## Build (once per version, cached outside the checkout) Crossplane core and RBAC manager, which test/crossplane runs with the External package runtime.
	cluster/local/build-crossplane.sh

# The oldest Crossplane release the package admits (versions.env's
# CROSSPLANE_FLOOR_VERSION, the floor of package/crossplane.yaml's
# constraint), built in its own module, cluster/local/crossplane-floor.
# `make test` runs only the newest (CROSSPLANE_VERSION): a second cold
# Crossplane build would add tens of minutes to every cold CI run. A release
# runs this target before it is tagged.
.PHONY: crossplane-floor
crossplane-floor: controlplane ## Before a release: build (cached) the oldest Crossplane the package admits and install, upgrade and uninstall the package with it (test/crossplane).
	cluster/local/build-crossplane.sh --floor >/dev/null
	PROVIDER_CODER_CROSSPLANE_FLOOR=1 PROVIDER_CODER_REQUIRE_CONTROLPLANE=1 \
		$(GO) test -count=1 -v -timeout 30m ./test/crossplane/

.PHONY: argocd
argocd: ## Build (once per version, cached outside the checkout) Argo CD's application controller and repo server, which test/argocdsync runs.
	cluster/local/build-argocd.sh

.PHONY: postgres
postgres: ## Install Debian's postgresql package when its server binaries are missing (the real Coder's database).
	hack/install-postgres.sh

.PHONY: redis
redis: ## Install Debian's redis-server, git, jq and curl packages when missing (Argo CD's cache and Git client in test/argocdsync; the docs' commands in test/docs).
	hack/install-redis.sh >/dev/null

# The test bed: the control plane, the real Coder and Crossplane build side
# by side (each is a long cold build and a no-op when cached); a failure of
# one stops the others.
.PHONY: testbed
testbed: postgres
	cluster/local/build.sh >/dev/null & cp=$$!; \
	cluster/local/build-coder.sh >/dev/null & coder=$$!; \
	cluster/local/build-crossplane.sh >/dev/null & xp=$$!; \
	trap 'kill $$cp $$coder $$xp 2>/dev/null || true' EXIT; \
	wait $$cp; wait $$coder; wait $$xp

.PHONY: vet
vet: ## go vet (with -race: see CHECK_RACE).
	$(GO) vet $(CHECK_RACE) ./...

# The Argo CD health test is a module of its own (Argo CD's dependencies are
# not the provider's): `./...` above skips it. Its go.mod names the Go
# toolchain Argo CD needs; GOTOOLCHAIN=auto fetches it from the module proxy
# once. It reads the files that test/argocd writes, and nothing else.
ARGOCD_RUN := GOTOOLCHAIN=auto GOWORK=off $(GO) -C test/argocd/argocdrun

.PHONY: argocd-health
argocd-health: ## Run the health checks of examples/argocd/argocd-cm.yaml through Argo CD's own code (test/argocd/argocdrun).
	$(ARGOCD_RUN) vet ./...
	$(ARGOCD_RUN) test ./...

# The health test, then Argo CD's binary from the same module: built second,
# it reuses the packages the health test compiled.
.PHONY: argocd-bed
argocd-bed:
	@$(MAKE) --no-print-directory argocd-health
	@cluster/local/build-argocd.sh >/dev/null

.PHONY: argocd-sync
argocd-sync: controlplane argocd redis ## Sync examples/argocd with Argo CD's own application controller and repo server, the provider on the fake Coder, and delete it (test/argocdsync; part of `make test`).
	PROVIDER_CODER_REQUIRE_CONTROLPLANE=1 PROVIDER_CODER_REQUIRE_ARGOCD=1 \
		$(GO) test -count=1 -v -timeout 20m ./test/argocdsync/

.PHONY: promtool
promtool: ## Build (once per version, cached outside the checkout) Prometheus's promtool from tools/promtool, which tests the alerts of examples/monitoring.
	hack/promtool.sh >/dev/null

.PHONY: lint
lint: ## golangci-lint (built from tools/go.mod).
	$(TOOL) golangci-lint run ./...

# Test binaries (and the harness's provider builds) link without DWARF:
# that halves a link (test/e2e's: 8.5 CPU-s, 4.7 without), about 50 links a
# run; nothing here reads it, and race reports and panics symbolize from the
# binary's own tables. A build that gives -ldflags keeps its own (the
# command line wins over GOFLAGS), and the release's sets GOFLAGS itself.
test unit reviewable: export GOFLAGS := $(strip $(filter-out -ldflags=-w,$(GOFLAGS)) -ldflags=-w)

.PHONY: reviewable
reviewable: generate vet lint unit ## The edit loop, a few minutes warm: regenerate, vet, lint and the unit tests; `make test` is what CI runs.

.PHONY: unit
unit: ## Unit tests only (no control plane).
	$(GO) test -race -short $(RACE_PKGS)

# What ran on the real Coder, which runs as Coder ships it: AI Gateway keys
# are premium, so their scenarios need a licence the user supplies.
ifeq ($(PROVIDER_CODER_LICENSE_FILE),)
REAL_CODER_LINE := real Coder: ran unlicensed (AI providers, the hold, namespace deletion, sweeps, provider contract and interleavings; keys get Coder's 403); skipped AI Gateway key scenarios and the key contract on it: set PROVIDER_CODER_LICENSE_FILE to a Coder licence file to run them (test/framework/realcoder/README.md)
else
REAL_CODER_LINE := real Coder: ran licensed from PROVIDER_CODER_LICENSE_FILE: AI providers and AI Gateway keys, the key contract included
endif

.PHONY: test
test: redis ## Everything CI runs: generated files, vet, lint, Argo CD's health checks and sync, unit and integration tests with -race.
	@# The test bed's long builds start first. Argo CD's module (its own
	@# toolchain) builds its health test, then its binary. Beside them run
	@# the checks, a race build of our packages and their dependencies, so
	@# the test binaries below only compile what is their own, and the
	@# release's build (the Crossplane CLI, the provider for both
	@# architectures), which three suites below would otherwise each start
	@# compiling at the same time.
	@$(MAKE) --no-print-directory argocd-bed & ah=$$!; \
	$(MAKE) --no-print-directory testbed & tb=$$!; \
	hack/promtool.sh >/dev/null & pt=$$!; \
	$(MAKE) --no-print-directory xpkg OUTPUT_DIR=$(abspath $(OUTPUT_DIR))/xpkg >/dev/null & xk=$$!; \
	trap 'kill $$ah $$tb $$pt $$xk 2>/dev/null || true' EXIT; \
	$(MAKE) --no-print-directory check-generate vet lint; \
	$(GO) build -race ./...; \
	wait $$ah; wait $$tb; wait $$pt; wait $$xk
	@# The two long scenario suites run beside the other packages, each as
	@# shards: processes with an environment of their own and a share of
	@# the work (hack/shard). They wait on time far more than they compute.
	@mkdir -p $(OUTPUT_DIR)
	@export PROVIDER_CODER_REQUIRE_CONTROLPLANE=1 PROVIDER_CODER_REQUIRE_CODER=1 PROVIDER_CODER_REQUIRE_ARGOCD=1 PROVIDER_CODER_REQUIRE_PROMTOOL=1; \
	PROVIDER_CODER_INTERLEAVE_SEEDS=cover $(SHARD) -n $(INTERLEAVE_SHARDS) -by env -timeout 75m -out $(OUTPUT_DIR) -print '^interleavings:' ./test/interleave > $(OUTPUT_DIR)/interleave.log 2>&1 & il=$$!; \
	$(SHARD) -n $(E2E_SHARDS) -always $(E2E_EVERY_SHARD) -skip $(E2E_ALONE) -timeout 60m -out $(OUTPUT_DIR) ./test/e2e > $(OUTPUT_DIR)/e2e.log 2>&1 & e2=$$!; \
	trap 'kill $$il $$e2 2>/dev/null || true' EXIT; \
	rc=0; $(GO) test -race -timeout 75m $(SLOW_PKGS) $$($(GO) list $(RACE_PKGS) ./apis/... ./cmd/... ./hack/... ./cluster/... | grep -v -e '/test/interleave$$' -e '/test/e2e$$' $(foreach p,$(SLOW_PKGS),-e '/$(patsubst ./%,%,$(p))$$')) || rc=$$?; \
	erc=0; wait $$e2 || erc=$$?; cat $(OUTPUT_DIR)/e2e.log; \
	irc=0; wait $$il || irc=$$?; cat $(OUTPUT_DIR)/interleave.log; \
	arc=0; (cd test/e2e && PROVIDER_CODER_SHARD=alone $(OUTPUT_DIR)/e2e.test -test.count=1 -test.timeout 20m -test.run '^($(E2E_ALONE))$$' -test.v > $(OUTPUT_DIR)/e2e-alone.log 2>&1) || arc=$$?; \
	grep -E '^(--- |ok|FAIL)|tenants_test' $(OUTPUT_DIR)/e2e-alone.log || true; \
	if [ $$arc -ne 0 ]; then echo "test/e2e alone failed: $(OUTPUT_DIR)/e2e-alone.log"; tail -n 60 $(OUTPUT_DIR)/e2e-alone.log; fi; \
	echo "$(REAL_CODER_LINE)"; \
	[ $$rc -eq 0 ] && [ $$erc -eq 0 ] && [ $$irc -eq 0 ] && [ $$arc -eq 0 ]
	@# The kind path ran above up to its Docker check; say what it decided
	@# (-race: the build above is reused).
	@$(GO) test -race -count=1 -run '^TestMakeE2EWithoutDockerStopsBeforeDoingAnything$$' -v ./test/framework/kind | grep -E 'kind_test.go|^--- ' || true

# Every fixed interleaving seed (make test runs the fewest that exercise
# everything they do: test/interleave's Cover).
.PHONY: interleave
interleave: testbed ## Run every fixed seed of test/interleave (make test runs the 16 of 28 that cover every feature they exercise), in 3 shards; logs in _output/interleave-shard-N.log.
	PROVIDER_CODER_REQUIRE_CONTROLPLANE=1 PROVIDER_CODER_REQUIRE_CODER=1 \
		$(SHARD) -n 3 -by env -timeout 75m -out $(OUTPUT_DIR) -print '^interleavings:' ./test/interleave

# Not part of `make test`: each mutant builds and runs its scenarios in a
# copy of the tree (minutes each). ONLY=name runs one.
.PHONY: soak
SEEDS ?= 50
soak: testbed ## Run SEEDS random interleavings (test/interleave) on the fake Coder in PROCS processes (default 1): a line per run and the tally; everything in _output/soak-N.log.
	hack/soak.sh $(SEEDS) $(or $(PROCS),1)

.PHONY: bench
bench: testbed ## Measure the provider against the bare Coder client on the same Coder (fake and real): throughput, requests, writes, CPU and memory; hold latency, deletion backlog, steady state at 1,000 to 20,000 keys. Writes docs/performance.{md,json,png} (BENCH_FLAGS narrows it; see hack/bench).
	$(GO) run ./hack/bench $(BENCH_FLAGS)
	$(GO) -C tools/plot run . -in $(CURDIR)/docs/performance.json -out $(CURDIR)/docs/performance.png -backlog $(CURDIR)/docs/performance-backlog.png -scale $(CURDIR)/docs/performance-scale.png

.PHONY: mutants
mutants: testbed ## Apply each mutation of hack/mutants to a copy of the tree and fail unless its tests kill every one (ONLY=name: one).
	$(GO) run ./hack/mutants $(if $(ONLY),-only $(ONLY))

.PHONY: build
build: ## Build the provider binary into bin/.
	$(GO) build -o bin/provider ./cmd/provider

# The image and the package, without Docker. ARCH is the GOARCH of both (not
# GOARCH itself: `go run` would build the image builder for it too). By
# default it is the kind node's: Docker's server architecture, or Go's where
# there is no Docker engine (cluster/images/arch). The eval computes it once,
# and only for the targets that use it.
OUTPUT_DIR ?= $(CURDIR)/_output
ARCH       ?= $(eval ARCH := $(shell $(GO) run ./cluster/images/arch))$(ARCH)
CRANK      := $(GO) tool -modfile=$(CURDIR)/tools/crank/go.mod crank

# The release's version: the package's, its image's labels' and the provider
# binary's (internal/version). By default the nearest v* tag (with the commits
# since it and -dirty, as git describe says), else v0.0.0-<commit>.
VERSION    ?= $(eval VERSION := $(shell git describe --tags --match 'v[0-9]*' --dirty 2>/dev/null || echo v0.0.0-$$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)))$(VERSION)
# The architectures of `make xpkg` and `make publish`: ARCH alone when it is
# given, else both.
XPKG_ARCHS ?= $(if $(filter command line environment,$(origin ARCH)),$(ARCH),amd64 arm64)
# The image builder, for `make image` and each architecture of `make xpkg`.
IMAGE_BUILD = $(GO) run ./cluster/images/provider-coder/build -version $(VERSION)
comma      := ,
empty      :=
space      := $(empty) $(empty)

.PHONY: image
image: ## Build the provider's OCI image (linux/ARCH, default: Docker's server architecture, else Go's) as a tarball into _output/, without Docker.
	$(IMAGE_BUILD) -arch $(ARCH) -o $(OUTPUT_DIR)/image-$(ARCH).tar

.PHONY: xpkg
xpkg: ## Build the Crossplane package for linux/amd64 and linux/arm64 (ARCH=...: that one) as VERSION, reproducibly, and their multi-arch index (an OCI layout) into _output/.
	@set -e; for a in $(XPKG_ARCHS); do \
		echo "xpkg $(VERSION) linux/$$a"; \
		$(IMAGE_BUILD) -arch $$a -o $(OUTPUT_DIR)/image-$$a.tar; \
		$(CRANK) xpkg build --package-root=package --examples-root=examples \
			--embed-runtime-image-tarball=$(OUTPUT_DIR)/image-$$a.tar \
			--package-file=$(OUTPUT_DIR)/provider-coder-$$a.xpkg; \
	done
	$(GO) -C $(CURDIR)/tools/crank run ./xpkgindex -tag $(VERSION) -o $(abspath $(OUTPUT_DIR))/provider-coder.oci $(foreach a,$(XPKG_ARCHS),$(abspath $(OUTPUT_DIR))/provider-coder-$(a).xpkg)

.PHONY: publish
publish: xpkg ## Push the multi-arch package to REGISTRY (host/org) as REGISTRY/provider-coder:VERSION with the Crossplane CLI (credentials: ~/.docker/config.json).
	@test -n "$(REGISTRY)" || { echo "make publish needs REGISTRY, the registry and organisation to push to: make publish REGISTRY=xpkg.crossplane.io/crossplane-contrib VERSION=v0.1.0"; exit 2; }
	$(CRANK) xpkg push --package-files=$(subst $(space),$(comma),$(foreach a,$(XPKG_ARCHS),$(OUTPUT_DIR)/provider-coder-$(a).xpkg)) $(REGISTRY)/provider-coder:$(VERSION)
	@echo "pushed $(REGISTRY)/provider-coder:$(VERSION) ($(XPKG_ARCHS))"

.PHONY: e2e
e2e: controlplane ## The install guide as written, then the hold, records and failover scenarios, on a kind cluster (the package by tag from make publish to a registry in the cluster) (needs Docker, or rootful Podman: hack/kind-podman-setup.sh; KEEP=1 keeps the cluster, KEEP=on-failure keeps it when the run fails).
	$(GO) run ./test/kind -arch $(ARCH)

.PHONY: kind-crossplane
kind-crossplane: ## Render Crossplane's chart (CROSSPLANE_VERSION, as a user installs it) into cluster/kind/crossplane-<version>.yaml for make e2e, with tools/helm.
	$(GO) run ./test/kind -render-crossplane

# CODER=real runs the real Coder server (built by `make coder`) instead of the fake.
CODER ?= fake

.PHONY: run
run: controlplane $(if $(filter real,$(CODER)),coder) ## Start a local control plane and a fake Coder (CODER=real: the real one; or CODER_URL/CODER_TOKEN), apply the quickstart, run the provider.
	CODER=$(CODER) $(GO) run ./cluster/local/run
