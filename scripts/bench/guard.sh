#!/usr/bin/env bash
# agentgate guard's overhead per message (issue #12): request round trips
# through `agentgate guard` against the same server started directly, both
# kept running and alternated one request at a time (scripts/bench/harness
# rtt; the first tools/list of each must list the same tools, all pinned,
# so a guard that withheld them could not pass as fast).
#   8a ping to server-everything (stdio), through guard vs direct: <= 1.5x
#   8b ping to the fake server (Go, ~1,000 tools), through guard vs direct:
#      the harshest case, where the server itself costs almost nothing
#   8c tools/list of 1,000 generated tools (fake server -generate 1000),
#      through guard vs direct: <= 1.2x
# Prints one line per target ending in PASS or FAIL and exits 1 if a
# target fails (8b is printed for information, target 1.5x as 8a).
# Method and recorded figures: docs/PERFORMANCE.md.
#
#   scripts/bench/guard.sh            # 300 requests each
#   N=1000 scripts/bench/guard.sh
#
# scripts/bench.sh runs it too, reusing its binaries (AG, H, OUT set).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
N=${N:-300}
. "$ROOT/scripts/lib/bench-bin.sh"
W=$OUT/guard
rm -rf "$W"
EVERYTHING_JS=$ROOT/testdata/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js
repo() { # repo DIR NAME SERVER-JSON: a git repository with one server, locked
	local dir=$1 name=$2 server=$3
	mkdir -p "$dir"
	git init -q "$dir"
	printf '{"mcpServers": {"%s": %s}}\n' "$name" "$server" >"$dir/.mcp.json"
	(cd "$dir" && "$AG" lock >/dev/null)
}
repo "$W/everything" everything "$(printf '{"command": "node", "args": ["%s", "stdio"]}' "$EVERYTHING_JS")"
repo "$W/gen" gen "$(printf '{"command": "%s", "args": ["fakeserver", "-generate", "1000"]}' "$H")"
fails=0
"$H" rtt -n "$N" -target 1.5 -method ping \
	-name "8a ping round trip to server-everything, through guard vs direct (stdio)" \
	--- env -C "$W/everything" "$AG" guard --server everything -- node "$EVERYTHING_JS" stdio \
	--- node "$EVERYTHING_JS" stdio || fails=$((fails + 1))
"$H" rtt -n "$N" -target 1.5 -method ping \
	-name "8b ping round trip to the fake server, through guard vs direct (stdio; information)" \
	--- env -C "$W/gen" "$AG" guard --server gen -- "$H" fakeserver -generate 1000 \
	--- "$H" fakeserver -generate 1000 || true
"$H" rtt -n "$((N / 3 + 1))" -target 1.2 -method tools/list \
	-name "8c tools/list of 1,000 tools, through guard vs direct (stdio)" \
	--- env -C "$W/gen" "$AG" guard --server gen -- "$H" fakeserver -generate 1000 \
	--- "$H" fakeserver -generate 1000 || fails=$((fails + 1))
[ "$fails" = 0 ]
