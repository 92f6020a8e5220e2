#!/usr/bin/env bash
# Lockfile version 2 (issue #10): `agentgate lock` of server-everything
# with a version 2 lockfile (tools, then prompts/list and
# resources/templates/list on the same session, every definition hashed
# with the recipe and written out) against the same lock with a version 1
# lockfile (tools/list only). Target: at most 1.1x. Also prints the
# lockfile sizes. Prints one line per target ending in PASS or FAIL
# (scripts/bench/harness ratio) and exits 1 if a target fails. Method and
# recorded figures: docs/PERFORMANCE.md.
#
#   scripts/bench/v2.sh            # 9 runs
#   RUNS=15 scripts/bench/v2.sh
#
# scripts/bench.sh runs it too, reusing its binaries (AG, H, OUT set).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
RUNS=${RUNS:-9}
. "$ROOT/scripts/lib/bench-bin.sh"
W=$OUT/v2
rm -rf "$W"
EVERYTHING_JS=$ROOT/testdata/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js
repo() { # repo DIR SERVER-JSON LOCK-ARGS...: a git repository with one server, locked with LOCK-ARGS
	local dir=$1 server=$2
	shift 2
	mkdir -p "$dir"
	git init -q "$dir"
	printf '{"mcpServers": {%s}}\n' "$server" >"$dir/.mcp.json"
	(cd "$dir" && "$AG" lock "$@" >/dev/null)
}
hashes_only() { # hashes_only DIR: relock DIR's version 2 file with definitions = false
	printf 'definitions = false\n' >"$1/agentgate.toml"
	(cd "$1" && "$AG" lock >/dev/null)
}
everything=$(printf '"everything": {"command": "node", "args": ["%s", "stdio"]}' "$EVERYTHING_JS")
gen=$(printf '"gen": {"command": "%s", "args": ["fakeserver", "-generate", "1000"]}' "$H")
repo "$W/v1" "$everything" --lockfile-version 1
repo "$W/v2" "$everything" --lockfile-version 2
repo "$W/v2-hashes" "$everything" --lockfile-version 2
hashes_only "$W/v2-hashes"
grep -q '"lockfileVersion": 2' "$W/v2/agentgate.lock" || { echo "7 FAIL: the version 2 lockfile is not version 2"; exit 1; }
echo "   lockfile sizes, server-everything: v1 $(wc -c <"$W/v1/agentgate.lock") B, v2 $(wc -c <"$W/v2/agentgate.lock") B, v2 with definitions = false $(wc -c <"$W/v2-hashes/agentgate.lock") B"
# 1,000 generated tools (about 256-byte schemas): sizes only.
repo "$W/gen-v1" "$gen" --lockfile-version 1
repo "$W/gen-v2" "$gen" --lockfile-version 2
repo "$W/gen-v2-hashes" "$gen" --lockfile-version 2
hashes_only "$W/gen-v2-hashes"
echo "   lockfile sizes, 1,000 generated tools: v1 $(wc -c <"$W/gen-v1/agentgate.lock") B, v2 $(wc -c <"$W/gen-v2/agentgate.lock") B, v2 with definitions = false $(wc -c <"$W/gen-v2-hashes/agentgate.lock") B"
"$H" ratio -runs "$RUNS" -target 1.1 \
	-name "7 agentgate lock of server-everything, lockfile v2 vs v1 (stdio)" \
	-- env -C "$W/v2" "$AG" lock \
	-- env -C "$W/v1" "$AG" lock
