#!/usr/bin/env bash
# agentgate guard's start-up cost for a pinned npm package (issue #30):
# `agentgate guard --server mail -- npx -y agentgate-test-mailer` (the
# unpinned command wrap writes; guard runs the locked 1.0.0) against the
# bare `npx -y agentgate-test-mailer@1.0.0`, each started, initialized,
# one tools/list, killed (scripts/bench/harness bare), from a loopback npm
# registry (harness npm-registry) serving the test package's two versions.
#   10a warm: npm's cache already holds 1.0.0 (guard checks the install
#       offline, asks no registry): <= 1.2x
#   10b cold: an empty npm cache for every run of both (guard asks the
#       registry, has npx install, checks the install, then starts it):
#       printed for information (target 3x)
# (harness ratio splits its commands at "--", so guard is given the server
# command without it: guard's flags end at the first argument that is not
# one.) Prints one line per target ending in PASS or FAIL; exits 1 if 10a
# fails.
# Method and recorded figures: docs/PERFORMANCE.md.
#
#   scripts/bench/runpkg.sh           # 9 alternated runs each
#   RUNS=15 scripts/bench/runpkg.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
RUNS=${RUNS:-9}
. "$ROOT/scripts/lib/bench-bin.sh"
W=$OUT/runpkg
rm -rf "$W"
mkdir -p "$W/ws" "$W/cache" "$W/cold"
PKG=$ROOT/internal/testing/npmregistry/testdata
"$H" npm-registry -url-file "$W/url" "$PKG/mailer-1.0.0" "$PKG/mailer-1.0.1" &
REG=$!
trap 'kill $REG 2>/dev/null' EXIT
for _ in $(seq 100); do [ -s "$W/url" ] && break; sleep 0.1; done
printf '' >"$W/npmrc"
export npm_config_registry=$(cat "$W/url") npm_config_cache=$W/cache npm_config_userconfig=$W/npmrc \
	npm_config_update_notifier=false npm_config_audit=false npm_config_fund=false npm_config_loglevel=error
echo "== machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(go version | cut -d' ' -f3), node $(node --version), npm $(npm --version)"

# Locked at 1.0.0 (the exact spec), then the config says the unpinned spec
# whose latest is 1.0.1, as most configs do.
git init -q "$W/ws"
printf '{"mcpServers": {"mail": {"command": "npx", "args": ["-y", "agentgate-test-mailer@1.0.0"]}}}\n' >"$W/ws/.mcp.json"
(cd "$W/ws" && "$AG" lock --lockfile-version 2 >/dev/null)
grep -q '"version": "1.0.0"' "$W/ws/agentgate.lock"
printf '{"mcpServers": {"mail": {"command": "npx", "args": ["-y", "agentgate-test-mailer"]}}}\n' >"$W/ws/.mcp.json"

fails=0
"$H" ratio -runs "$RUNS" -target 1.2 \
	-name "10a start-up, warm cache: guard (npx -y pkg, runs the locked 1.0.0) vs bare npx -y pkg@1.0.0" \
	-- env -C "$W/ws" "$H" bare "$AG" guard --server mail npx -y agentgate-test-mailer \
	-- env -C "$W/ws" "$H" bare npx -y agentgate-test-mailer@1.0.0 || fails=1
# A fresh cache per run, made the same way for both.
cold() { printf 'c=$(mktemp -d -p %s) && npm_config_cache=$c %s' "$W/cold" "$*"; }
"$H" ratio -runs "$RUNS" -target 3 \
	-name "10b start-up, empty cache (information): guard vs bare npx -y pkg@1.0.0" \
	-- env -C "$W/ws" sh -c "$(cold "$H" bare "$AG" guard --server mail -- npx -y agentgate-test-mailer)" \
	-- env -C "$W/ws" sh -c "$(cold "$H" bare npx -y agentgate-test-mailer@1.0.0)" || true
exit $fails
