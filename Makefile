# provider-coder: `make run` tries it, `make test` proves it.
SHELL := /usr/bin/env bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

GO       ?= go
TOOL     := $(GO) tool -modfile=$(CURDIR)/tools/go.mod
# Packages whose tests run with the race detector: everything with goroutines
# of our own (controllers, clients, the fake Coder, the scenario suites).
RACE_PKGS := ./internal/... ./test/...

.PHONY: help
help: ## Show the targets.
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-14s %s\n", $$1, $$2}'

.PHONY: generate
generate: ## Regenerate deepcopy, managed-resource methods and package/crds from the API types.
	rm -rf package/crds
	cd apis && $(GO) generate ./...

.PHONY: check-generate
check-generate: generate ## Fail when generated files differ from the committed ones.
	@if [ -n "$$(git status --porcelain -- apis package/crds)" ]; then \
		echo "Generated files are out of date; run 'make generate' and commit:"; \
		git status --porcelain -- apis package/crds; exit 1; fi

.PHONY: controlplane
controlplane: ## Build (once, cached outside the checkout) etcd, kube-apiserver, kube-controller-manager and kubectl.
	cluster/local/build.sh

.PHONY: vet
vet: ## go vet.
	$(GO) vet ./...

.PHONY: lint
lint: ## golangci-lint (built from tools/go.mod).
	$(TOOL) golangci-lint run ./...

.PHONY: unit
unit: ## Unit tests only (no control plane).
	$(GO) test -race -short $(RACE_PKGS)

.PHONY: test
test: check-generate vet lint controlplane ## Everything CI runs: generated files, vet, lint, unit and integration tests with -race.
	PROVIDER_CODER_REQUIRE_CONTROLPLANE=1 $(GO) test -race -timeout 40m $(RACE_PKGS) ./apis/... ./cmd/...

.PHONY: build
build: ## Build the provider binary into bin/.
	$(GO) build -o bin/provider ./cmd/provider

.PHONY: run
run: controlplane ## Start a local control plane and a fake Coder (or CODER_URL/CODER_TOKEN), apply the quickstart, run the provider.
	$(GO) run ./cluster/local/run
