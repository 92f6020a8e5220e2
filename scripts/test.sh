#!/usr/bin/env bash
# Runs every test agentgate has: installs what the tests need (the pinned npm
# MCP servers, the pre-commit framework), then vet, gofmt and go test.
# This is the README's test command; .ci/run calls it, then scripts/test-windows.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

# One line per phase on stderr, with the seconds since the start, so that a
# cold run (npm installs, cross builds and vets take minutes) is never silent.
start=$SECONDS
phase() { echo "scripts/test.sh: [$((SECONDS - start)) s] $*" >&2; }

# Pinned real MCP servers for the integration tests (package-lock.json).
. scripts/lib/npm-ci.sh
phase "npm ci testdata/npm (the pinned MCP servers)"
npm_ci testdata/npm
# The official MCP conformance suite and the Node 22 it needs, run against
# agentgate as a client (mcp/capture/conformance_test.go).
phase "npm ci testdata/conformance (the MCP conformance suite, Node 22)"
npm_ci testdata/conformance
# The official MCP Inspector CLI (and its Node 22), the client of the guard
# and bridge tests (mcp/bridge, internal/cli guard tests).
phase "npm ci testdata/inspector (the MCP Inspector CLI, Node 22)"
npm_ci testdata/inspector
# The CycloneDX JSON schemas, which agentgate sbom's output is validated
# against (render/sbom_test.go).
phase "npm ci testdata/cyclonedx (the CycloneDX schemas)"
npm_ci testdata/cyclonedx

# The real pre-commit framework for the route tests; shellcheck, which
# actionlint runs on the action's and the workflows' scripts; zsh and fish,
# which load and run `agentgate completion`'s scripts (bash is here
# already); groff and man, which render `agentgate man`'s pages.
missing=()
command -v pre-commit >/dev/null 2>&1 || missing+=(pre-commit)
command -v shellcheck >/dev/null 2>&1 || missing+=(shellcheck)
# (Linux only: on macOS and Windows those tests run when the tools are
# there; Linux CI always runs them.)
if [ "$(uname -s)" = Linux ]; then
  command -v zsh >/dev/null 2>&1 || missing+=(zsh)
  command -v fish >/dev/null 2>&1 || missing+=(fish)
  command -v groff >/dev/null 2>&1 || missing+=(groff-base)
  command -v man >/dev/null 2>&1 || missing+=(man-db)
fi
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    phase "apt-get install ${missing[*]}"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "scripts/test.sh: missing ${missing[*]}; run: sudo apt-get install -y ${missing[*]}" >&2
    exit 2
  fi
fi

phase "go vet ./..."
go vet ./...
# The benchmark tools build only with their tag: vet them too, so that
# scripts/bench.sh cannot break unseen.
phase "go vet -tags agentgate_bench ./scripts/..."
go vet -tags agentgate_bench ./scripts/...
# Every package builds for every supported OS and arch; vet is clean for
# darwin and windows (issue #9): a Linux-only call cannot land.
# CI's OS matrix sets AGENTGATE_CROSSBUILD=0: its cross-build job runs it.
if [ "${AGENTGATE_CROSSBUILD:-1}" != 0 ]; then
  phase "scripts/crossbuild.sh (every OS and arch builds; vet for darwin and windows)"
  scripts/crossbuild.sh
fi
# GoReleaser's install from source is a long build (37 min here under load):
# opt-in with AGENTGATE_GORELEASER=1, and run whenever it is already in the
# cache (then goreleaser check takes well under a second). CI's
# release-config job checks the configuration on every push.
# AGENTGATE_GORELEASER=1 also builds the snapshot (every archive, package
# and, with syft on PATH, SBOM; unsigned) and checks dist/ with verify-dist.
if [ "${AGENTGATE_GORELEASER:-0}" = 1 ] || scripts/goreleaser.sh installed; then
  phase "goreleaser check"
  NO_COLOR=1 scripts/goreleaser.sh check
fi
if [ "${AGENTGATE_GORELEASER:-0}" = 1 ]; then
  phase "goreleaser snapshot"
  NO_COLOR=1 scripts/goreleaser.sh snapshot
fi
phase "gofmt -l"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './testdata/*'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change: $unformatted" >&2
  exit 1
fi
# No unreachable functions, counting tests as roots (issue #13).
phase "go tool deadcode -test ./..."
dead=$(go tool deadcode -test ./...)
if [ -n "$dead" ]; then
  echo "deadcode reports unreachable functions:" >&2
  echo "$dead" >&2
  exit 1
fi
# staticcheck (the version go.mod's tool block pins), every check it runs
# by default: any finding fails the run.
phase "go tool staticcheck ./..."
if ! found=$(go tool staticcheck ./... 2>&1); then
  echo "staticcheck reports:" >&2
  echo "$found" >&2
  exit 1
fi
# Branching (issue #28): at most 1.0 function over cyclomatic 20 per
# 1,000 lines (scripts/cyclo.sh says what counts).
phase "scripts/cyclo.sh (CYCLO_MAX=1.0)"
if ! cyclo=$(CYCLO_MAX=1.0 scripts/cyclo.sh 2>&1); then
  echo "$cyclo" >&2
  exit 1
fi
phase "go test ./..."
go test -count=1 -timeout 45m ./... "$@"
phase "done"
