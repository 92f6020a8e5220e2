#!/usr/bin/env bash
# scripts/test-clients.sh: six real MCP clients as referees (issue #25).
#
# Installs the clients pinned in testdata/clients/package-lock.json (npm ci,
# about 1.4 GB: Claude Code, Gemini CLI, Codex, opencode, Qwen Code, GitHub
# Copilot CLI) and the MCP servers of testdata/npm, builds agentgate, then
# runs everything else inside a network namespace with only loopback
# (`unshare --net` as root, else `unshare -rn`): nothing a client does can
# leave the machine, and the loopback servers (server-everything over
# streamable HTTP and SSE) start inside the same namespace. Each client
# runs with its own throwaway HOME and XDG directories, the telemetry
# opt-outs and the trust settings it needs (docs/config.md, "Real clients
# as referees"). For repositories of traps it compares what each client
# reads and starts (its own listing command; a small logging server of
# ours, testdata/clients/logsrv.js, records every start with the client's
# initialize) with `agentgate servers --format json`; checks the config
# findings of issue #25; and wraps, lists and unwraps a repository.
#
# Where no network namespace can be made it prints why and exits 0
# without running a client (never with the network).
# Exit 0: every check passed; 1: a check failed (each is printed).
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD

if [ -z "${AG_CLIENTS_INNER:-}" ]; then
	# ip(8) brings loopback up inside the namespace; jq reads the reports.
	# As root they are installed, as scripts/test.sh installs its tools,
	# so that a fresh CI machine runs the clients rather than skipping them.
	missing=()
	command -v ip >/dev/null 2>&1 || missing+=(iproute2)
	command -v jq >/dev/null 2>&1 || missing+=(jq)
	if [ ${#missing[@]} -gt 0 ]; then
		if [ "$(id -u)" = 0 ]; then
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
		else
			echo "scripts/test-clients.sh: missing ${missing[*]}; run: sudo apt-get install -y ${missing[*]}" >&2
			exit 2
		fi
	fi
	if [ "$(id -u)" = 0 ]; then ns=(unshare --net); else ns=(unshare -rn); fi
	if ! "${ns[@]}" true 2>/dev/null || ! command -v ip >/dev/null 2>&1; then
		echo "scripts/test-clients.sh: SKIPPED: cannot create a loopback-only network namespace here (${ns[*]} or ip(8) from iproute2 is unavailable); the real clients are never run with the network" >&2
		exit 0
	fi
	. scripts/lib/npm-ci.sh
	npm_ci testdata/npm
	npm_ci testdata/clients
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/agentgate-clients.XXXXXX")
	trap 'rm -rf "$WORK"' EXIT
	mkdir -p "$WORK/bin"
	go build -o "$WORK/bin/" ./cmd/agentgate ./cmd/agentgate-mcp
	AG_CLIENTS_INNER=1 AG_WORK=$WORK "${ns[@]}" bash -c 'ip link set lo up && exec "$0"' "$0"
	exit $?
fi

# ---- inside the namespace ----------------------------------------------
WORK=$AG_WORK
CLIENTS=$REPO/testdata/clients/node_modules/.bin
NODE=$(command -v node)
LOGSRV=$REPO/testdata/clients/logsrv.js
EVERYTHING=$REPO/testdata/npm/node_modules/.bin/mcp-server-everything
REFEREE="$NODE $REPO/testdata/clients/referee.js"
AGENTGATE=$WORK/bin/agentgate
export PATH="$WORK/bin:$PATH"
# The variable the traps' ${AG_SET} references, for the clients and agentgate.
export AG_SET=value-of-ag-set
fails=0 checks=0
pass() { checks=$((checks + 1)); echo "ok   $*"; }
fail() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL $*"; }

# Loopback servers: server-everything over streamable HTTP and legacy SSE.
PORT=3101 "$EVERYTHING" streamableHttp >"$WORK/http.log" 2>&1 &
PORT=3102 "$EVERYTHING" sse >"$WORK/sse.log" 2>&1 &
for port in 3101 3102; do
	for _ in $(seq 100); do (echo >/dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.1; done
done
HTTP=http://127.0.0.1:3101/mcp SSE=http://127.0.0.1:3102/sse

# client_home CLIENT REPO: a throwaway home for one run, trusting REPO.
client_home() {
	local h=$WORK/home/$1.$RANDOM$RANDOM r=$2
	mkdir -p "$h/.config" "$h/.local/share" "$h/.cache" "$h/.local/state"
	case $1 in
	claude) mkdir -p "$h/.claude" && echo '{"enableAllProjectMcpServers": true}' >"$h/.claude/settings.json" ;;
	gemini | qwen) mkdir -p "$h/.$1" && printf '{"%s": "TRUST_FOLDER"}\n' "$r" >"$h/.$1/trustedFolders.json" ;;
	codex) mkdir -p "$h/.codex" && printf '[projects."%s"]\ntrust_level = "trusted"\n' "$r" >"$h/.codex/config.toml" ;;
	copilot) mkdir -p "$h/.copilot" && printf '{"trusted_folders": ["%s"]}\n' "$r" >"$h/.copilot/config.json" ;;
	esac
	echo "$h"
}

# in_home HOME REPO CMD...: run CMD in REPO with only HOME, the XDG
# directories under it and the clients' opt-outs.
in_home() {
	local h=$1 r=$2
	shift 2
	(cd "$r" && exec env -i PATH="$CLIENTS:$WORK/bin:/usr/local/bin:/usr/bin:/bin" HOME="$h" \
		XDG_CONFIG_HOME="$h/.config" XDG_DATA_HOME="$h/.local/share" XDG_CACHE_HOME="$h/.cache" XDG_STATE_HOME="$h/.local/state" \
		DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 DO_NOT_TRACK=1 \
		TERM=dumb NO_COLOR=1 AG_SET="$AG_SET" ${CODEX_HOME_FOR:+CODEX_HOME=$CODEX_HOME_FOR} \
		timeout "${AG_TIMEOUT:-120}" "$@")
}

# run_until SECS CHECK CMD...: run CMD (an in_home command line) until the
# shell test CHECK holds (checked every 0.2s; then a second more), CMD ends,
# or SECS pass: the sessions (codex exec, gemini -p) never end by
# themselves here, since their vendor is out of reach.
run_until() {
	local secs=$1 check=$2 pid
	shift 2
	AG_TIMEOUT=$secs "$@" &
	pid=$!
	for _ in $(seq $((secs * 5))); do
		if eval "$check"; then sleep 1; break; fi
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.2
	done
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}

# list CLIENT REPO OUT: the client's own listing command, its output in OUT.
list() {
	local c=$1 r=$2 out=$3 h
	h=$(client_home "$c" "$r")
	case $c in
	claude | gemini | qwen | opencode | copilot) in_home "$h" "$r" "$c" mcp list >"$out" 2>&1 || true ;;
	codex) in_home "$h" "$r" codex mcp list --json >"$out" 2>&1 || true ;;
	esac
}

# files_of CLIENT REPO: the repository files the client reads.
files_of() {
	case $1 in
	claude) echo .mcp.json ;;
	gemini) echo .gemini/settings.json ;;
	qwen) echo .qwen/settings.json ;;
	codex) echo .codex/config.toml ;;
	opencode) echo opencode.json opencode.jsonc ;;
	copilot) if [ -e "$2/.mcp.json" ]; then echo .mcp.json; else echo .github/mcp.json; fi ;;
	esac
}

# referee CASE CLIENT REPO [stricter REASON]: the servers the client reads
# and starts must be the servers agentgate locks from that client's files
# (and the ones it turns off, agentgate skips). "stricter": agentgate's
# documented stricter choice; it must lock every server the client starts.
referee() {
	local case=$1 c=$2 r=$3 mode=${4:-equal} why=${5:-} out=$WORK/out/$1.$2
	mkdir -p "$WORK/out"
	list "$c" "$r" "$out.txt"
	(cd "$r" && "$AGENTGATE" servers --format json >"$out.ag.json" 2>/dev/null) || true
	local got want
	got=$($REFEREE parse "$c" "$out.txt" 2>"$out.err") || { fail "$case/$c: cannot parse the client's listing: $(head -c 300 "$out.err") $(head -c 500 "$out.txt")"; return; }
	# shellcheck disable=SC2046
	want=$($REFEREE agentgate "$out.ag.json" $(files_of "$c" "$r"))
	local on_c on_a off_c
	on_c=$(jq -c '[to_entries[] | select(.value != "off") | .key] | sort' <<<"$got")
	off_c=$(jq -c '[to_entries[] | select(.value == "off") | .key] | sort' <<<"$got")
	on_a=$(jq -c '[to_entries[] | select(.value == "locked") | .key] | sort' <<<"$want")
	if [ "$mode" = stricter ]; then
		if jq -e --argjson a "$on_a" '. - $a == []' <<<"$on_c" >/dev/null; then
			pass "$case/$c: client starts $on_c, agentgate locks $on_a (stricter: $why)"
		else
			fail "$case/$c: client starts $on_c but agentgate locks only $on_a"
		fi
		return
	fi
	if [ "$on_c" = "$on_a" ] && jq -e --argjson a "$on_a" '[.[] | select(. as $n | $a | index($n))] == []' <<<"$off_c" >/dev/null; then
		pass "$case/$c: starts $on_c, off $off_c; agentgate the same"
	else
		fail "$case/$c: client: $got; agentgate: $want (client output: $out.txt)"
		sed 's/^/     | /' "$out.txt" | head -20
	fi
}

logsrv() { printf '"%s", "%s", "%s"' "$LOGSRV" "$1" "$WORK/log"; }
mkdir -p "$WORK/log"

# ---- repository of traps -----------------------------------------------
T=$WORK/traps
mkdir -p "$T/.gemini" "$T/.qwen" "$T/.codex" "$T/tools" && git -C "$T" init -q
cat >"$T/.mcp.json" <<EOF
{"mcpServers": {
  "c-ok": {"command": "$NODE", "args": [$(logsrv c-ok)], "alwaysAllow": ["echo"]},
  "c-var": {"command": "$NODE", "args": [$(logsrv c-var), "\${AG_SET}"], "env": {"X": "\${AG_UNSET:-dflt}"}},
  "c-http": {"type": "http", "url": "$HTTP"},
  "c-sse": {"type": "sse", "url": "$SSE"},
  "dup": {"command": "$NODE", "args": [$(logsrv dup)]}
}}
EOF
cat >"$T/.gemini/settings.json" <<EOF
{"mcpServers": {
  "g-ok": {"command": "$NODE", "args": [$(logsrv g-ok)], "cwd": "tools", "trust": false, "timeout": 30000},
  "g-excluded": {"command": "$NODE", "args": [$(logsrv g-excluded)]},
  "g-http": {"httpUrl": "$HTTP"},
  "dup": {"command": "$NODE", "args": [$(logsrv dup)]}
}, "mcp": {"excluded": ["g-excluded"]}}
EOF
cat >"$T/.qwen/settings.json" <<EOF
{"mcpServers": {
  "q-ok": {"command": "$NODE", "args": [$(logsrv q-ok), "\$AG_SET"]},
  "q-excluded": {"command": "$NODE", "args": [$(logsrv q-excluded)]},
  "q-sse": {"url": "$SSE"}
}, "mcp": {"excluded": ["q-excluded"]}, "\$version": 4}
EOF
cat >"$T/.codex/config.toml" <<EOF
# a comment
[mcp_servers.x-ok]
command = "$NODE"
args = [$(logsrv x-ok)]
cwd = "tools"
startup_timeout_sec = 30

[mcp_servers.x-off]
command = "$NODE"
args = [$(logsrv x-off)]
enabled = false

[mcp_servers.x-http]
url = "$HTTP"
EOF
cat >"$T/opencode.json" <<EOF
{"\$schema": "https://opencode.ai/config.json", "mcp": {
  "o-ok": {"type": "local", "command": ["$NODE", $(logsrv o-ok)], "environment": {"A": "{env:AG_SET}"}},
  "o-off": {"type": "local", "command": ["$NODE", $(logsrv o-off)], "enabled": false},
  "o-remote": {"type": "remote", "url": "$HTTP"}
}}
EOF
for c in claude gemini qwen codex opencode copilot; do referee traps "$c" "$T"; done
# Started for real: each stdio server a connecting client lists wrote its
# log, in the directory its config names.
for n in c-ok c-var dup g-ok q-ok o-ok q-excluded; do
	[ -s "$WORK/log/$n.json" ] && pass "traps: $n started ($(jq -c '{cwd, client: .clientInfo.name}' "$WORK/log/$n.json"))" || fail "traps: $n did not start"
done
for n in g-excluded o-off; do [ ! -e "$WORK/log/$n.json" ] && pass "traps: $n not started" || fail "traps: $n started"; done
[ "$(jq -r .cwd "$WORK/log/g-ok.json" 2>/dev/null)" = "$T/tools" ] && pass "traps: Gemini runs g-ok in its cwd" || fail "traps: g-ok cwd $(jq -r .cwd "$WORK/log/g-ok.json" 2>/dev/null)"
jq -r '.servers[] | select(.name == "g-ok") | .cwd' "$WORK/out/traps.gemini.ag.json" | grep -qx tools && pass "traps: agentgate reads g-ok's cwd" || fail "traps: agentgate g-ok cwd"

# What each client declares in initialize, against agentgate's table
# (config.DeclaredCapabilities; issue #25 finding 6).
caps_of() { jq -c '.capabilities | del(.experimental) | keys | sort' "$WORK/log/$1.json" 2>/dev/null; }
ag_caps() { jq -c --arg n "$1" '[.servers[] | select(.name == $n) | .clientCapabilities // []][0] // [] | sort' "$WORK/out/traps.claude.ag.json"; }
[ "$(caps_of c-ok)" = '["elicitation","roots"]' ] && pass "caps: Claude Code declares $(caps_of c-ok)" || fail "caps: Claude Code declares $(caps_of c-ok)"
[ "$(caps_of o-ok)" = '["roots"]' ] && [ "$(ag_caps o-ok)" = '["roots"]' ] && pass "caps: opencode declares $(caps_of o-ok); agentgate declares $(ag_caps o-ok)" || fail "caps: opencode $(caps_of o-ok), agentgate $(ag_caps o-ok)"
[ "$(ag_caps c-ok)" = '["elicitation","roots","sampling"]' ] && pass "caps: agentgate declares $(ag_caps c-ok) for .mcp.json (Claude Code, VS Code, Copilot CLI)" || fail "caps: .mcp.json $(ag_caps c-ok)"
h=$(client_home codex "$T")
run_until 60 '[ -s "$WORK/log/x-ok.json" ]' in_home "$h" "$T" codex exec hi >"$WORK/out/codex-exec.txt" 2>&1
[ "$(caps_of x-ok)" = '["elicitation"]' ] && [ "$(ag_caps x-ok)" = '["elicitation"]' ] && pass "caps: Codex (codex exec) declares $(caps_of x-ok); agentgate $(ag_caps x-ok)" || fail "caps: Codex $(caps_of x-ok), agentgate $(ag_caps x-ok)"
[ "$(jq -r .cwd "$WORK/log/x-ok.json" 2>/dev/null)" = "$T/tools" ] && pass "traps: Codex runs x-ok in its cwd" || fail "traps: x-ok cwd"
[ ! -e "$WORK/log/x-off.json" ] && pass "traps: Codex does not start x-off" || fail "traps: Codex started x-off"
rm -f "$WORK/log/g-ok.json"
h=$(client_home gemini "$T")
run_until 60 '[ -s "$WORK/log/g-ok.json" ]' in_home "$h" "$T" env GEMINI_API_KEY=none gemini -p hi >"$WORK/out/gemini-session.txt" 2>&1
[ "$(caps_of g-ok)" = '["roots"]' ] && [ "$(ag_caps g-ok)" = '["roots"]' ] && pass "caps: a Gemini CLI session declares $(caps_of g-ok); agentgate $(ag_caps g-ok)" || fail "caps: Gemini $(caps_of g-ok), agentgate $(ag_caps g-ok)"

# ---- Copilot CLI: .github/mcp.json (finding 2) ---------------------------
G=$WORK/copilot
mkdir -p "$G/.github" && git -C "$G" init -q
cat >"$G/.github/mcp.json" <<EOF
{"mcpServers": {"gh-ok": {"type": "local", "command": "$NODE", "args": [$(logsrv gh-ok)], "tools": ["*"]},
  "gh-http": {"url": "$HTTP"}, "gh-flag": {"command": "$NODE", "args": [$(logsrv gh-flag)], "disabled": true}}}
EOF
referee copilot copilot "$G"
referee copilot claude "$G"
echo '{"gh-bare": {"command": "node", "args": ["x"]}}' >"$G/.github/mcp.json"
referee copilot-bare copilot "$G"
echo '{}' >"$G/.mcp.json"
referee copilot-shadowed copilot "$G"

# ---- strict JSON clients and JSONC (documented stricter choice) ----------
J=$WORK/jsonc
mkdir -p "$J/.gemini" && git -C "$J" init -q
printf '{\n  // a comment\n  "mcpServers": {"j-ok": {"command": "%s", "args": [%s],},},\n}\n' "$NODE" "$(logsrv j-ok)" | tee "$J/.mcp.json" >"$J/.gemini/settings.json"
referee jsonc claude "$J" stricter "Claude Code refuses JSONC; agentgate locks what the file declares"
referee jsonc gemini "$J" stricter "Gemini CLI refuses JSONC; agentgate locks what the file declares"

# ---- Codex: an entry with only enabled = false (finding 3) ---------------
X=$WORK/toggle
mkdir -p "$X/.codex" && git -C "$X" init -q
printf '[mcp_servers.t-ok]\ncommand = "%s"\nargs = [%s]\n\n[mcp_servers.t1]\nenabled = false\n' "$NODE" "$(logsrv t-ok)" >"$X/.codex/config.toml"
h=$(client_home codex "$X")
if in_home "$h" "$X" codex mcp list --json >"$WORK/out/toggle.codex.txt" 2>&1; then fail "toggle: Codex accepted a toggle of an undefined server"; else pass "toggle: Codex refuses the file ($(grep -m1 -o 'invalid transport.*' "$WORK/out/toggle.codex.txt"))"; fi
rc=0
(cd "$X" && CODEX_HOME=$h/.codex "$AGENTGATE" servers >/dev/null 2>"$WORK/out/toggle.ag.err") || rc=$?
[ $rc = 2 ] && grep -q 'Codex refuses the whole file' "$WORK/out/toggle.ag.err" && pass "toggle: agentgate refuses it too (exit 2)" || fail "toggle: agentgate exit $rc: $(cat "$WORK/out/toggle.ag.err")"
printf '\n[mcp_servers.t1]\ncommand = "%s"\nargs = [%s]\n' "$NODE" "$(logsrv t1)" >>"$h/.codex/config.toml"
in_home "$h" "$X" codex mcp list --json >"$WORK/out/toggle2.codex.txt" 2>&1 || true
got=$($REFEREE parse codex "$WORK/out/toggle2.codex.txt" 2>/dev/null || echo '{}')
rc=0
(cd "$X" && CODEX_HOME=$h/.codex "$AGENTGATE" servers --format json >"$WORK/out/toggle2.ag.json" 2>/dev/null) || rc=$?
st=$(jq -r '.servers[] | select(.name == "t1") | .status' "$WORK/out/toggle2.ag.json")
[ "$got" = '{"t-ok":"listed","t1":"off"}' ] && [ $rc = 0 ] && [ "$st" = disabled ] && pass "toggle: with the user's server, Codex $got, agentgate t1 $st" || fail "toggle: Codex $got, agentgate exit $rc t1 '$st'"

# ---- Codex http_headers_helper (findings 4 and 5) ------------------------
Y=$WORK/helper
mkdir -p "$Y/.codex" && git -C "$Y" init -q
printf '[mcp_servers.h-web]\nurl = "%s"\nhttp_headers_helper = "touch %s/helper-ran"\n' "$HTTP" "$WORK" >"$Y/.codex/config.toml"
referee helper codex "$Y"
rc=0
(cd "$Y" && "$AGENTGATE" lock >/dev/null 2>"$WORK/out/helper.lock.err") || rc=$?
[ $rc = 3 ] && grep -q http_headers_helper "$WORK/out/helper.lock.err" && [ ! -e "$WORK/helper-ran" ] && pass "helper: agentgate lock: could not verify (exit 3), naming http_headers_helper; the helper did not run" || fail "helper: lock exit $rc, ran=$([ -e "$WORK/helper-ran" ] && echo yes || echo no): $(cat "$WORK/out/helper.lock.err")"
rc=0
(cd "$Y" && "$AGENTGATE" wrap >/dev/null 2>"$WORK/out/helper.wrap.err") || rc=$?
[ $rc = 0 ] && grep -q 'server "h-web": http_headers_helper: not wrapped' "$WORK/out/helper.wrap.err" && pass "helper: agentgate wrap leaves it alone with a warning" || fail "helper: wrap exit $rc: $(cat "$WORK/out/helper.wrap.err")"
h=$(client_home codex "$Y")
if in_home "$h" "$Y" codex mcp list --json >"$WORK/out/helper.wrapped.txt" 2>&1; then pass "helper: after wrap Codex still loads the file"; else fail "helper: after wrap Codex refuses: $(tail -2 "$WORK/out/helper.wrapped.txt")"; fi

# ---- wrap / unwrap round trip -------------------------------------------
cp -a "$T" "$WORK/traps.orig"
rc=0
(cd "$T" && "$AGENTGATE" lock >"$WORK/out/lock.txt" 2>&1) || rc=$?
[ $rc = 0 ] && pass "wrap: agentgate lock of the traps" || fail "wrap: lock exit $rc: $(tail -5 "$WORK/out/lock.txt")"
(cd "$T" && "$AGENTGATE" wrap >"$WORK/out/wrap.txt" 2>&1) || fail "wrap: agentgate wrap: $(tail -3 "$WORK/out/wrap.txt")"
rm -f "$WORK"/log/*.json
for c in claude gemini qwen codex opencode; do referee wrapped "$c" "$T"; done
for n in c-ok g-ok q-ok o-ok; do
	[ -s "$WORK/log/$n.json" ] && pass "wrapped: $n started through guard" || fail "wrapped: $n did not start"
done
# A rug pull under guard (finding 7): logsrv changes its description while
# LOGDIR/drift exists. Gemini CLI shows guard's stderr with --debug, and
# reports the server with no tool left.
touch "$WORK/log/drift"
h=$(client_home gemini "$T")
run_until 60 'grep -q "No prompts, tools, or resources found" "$WORK/out/gemini-drift.txt"' in_home "$h" "$T" env GEMINI_API_KEY=none gemini -p hi --debug >"$WORK/out/gemini-drift.txt" 2>&1
rm -f "$WORK/log/drift"
grep -q 'MCP STDERR (g-ok)\]: *agentgate: guard: "g-ok": tool "echo": description changed .*: withheld' "$WORK/out/gemini-drift.txt" &&
	pass "guard: Gemini CLI --debug shows guard's withheld line" || fail "guard: Gemini CLI --debug output lacks guard's line ($WORK/out/gemini-drift.txt)"
grep -q "No prompts, tools, or resources found on the server" "$WORK/out/gemini-drift.txt" &&
	pass "guard: Gemini CLI reports g-ok with no tool left" || fail "guard: Gemini CLI does not report the empty server"
(cd "$T" && "$AGENTGATE" unwrap >"$WORK/out/unwrap.txt" 2>&1) || fail "wrap: agentgate unwrap: $(tail -3 "$WORK/out/unwrap.txt")"
for f in .mcp.json .gemini/settings.json .qwen/settings.json .codex/config.toml opencode.json; do
	cmp -s "$T/$f" "$WORK/traps.orig/$f" && pass "unwrap: $f byte for byte as before" || fail "unwrap: $f differs: $(diff "$WORK/traps.orig/$f" "$T/$f" | head -5)"
done

echo "test-clients: $checks checks, $fails failed"
[ "$fails" = 0 ]
