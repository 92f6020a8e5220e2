#!/usr/bin/env bash
# corpus.sh: record the benign half of the triage corpus
# (triage/testdata/corpus/benign) from real releases of public MCP servers.
# For each package@version in triage/testdata/corpus/releases.tsv (the
# packages the rules were shaped by) and releases-heldout.tsv (held out:
# measured, never tuned against) it installs the release from the npm
# registry into a scratch directory (no install scripts), starts it over
# stdio with capture.mjs in a network namespace of its own (unshare -n, or
# -rn without root), and writes what a client reads (instructions, tools,
# prompts, resource templates, exactly as sent) to
# triage/testdata/corpus/benign/PACKAGE/VERSION.json (a release already
# recorded is kept; delete its file to record it again). The servers get
# dummy API keys and no network: listing tools needs neither, nothing is
# called, and a release that needs the network to list, or whose
# tools/list answers with an error, is not recorded.
#
#   scripts/triage/corpus.sh [PACKAGE-PREFIX]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export npm_config_cache="${npm_config_cache:-$scratch/cache}"
mkdir -p "$scratch/fs-root"
# A dummy kubeconfig: its one cluster is a port on the loopback address
# that nothing listens on (and the namespace has no network anyway).
cat >"$scratch/kubeconfig" <<'EOF'
apiVersion: v1
kind: Config
clusters:
- name: x
  cluster:
    server: https://127.0.0.1:6443
contexts:
- name: x
  context:
    cluster: x
    user: x
current-context: x
users:
- name: x
  user:
    token: x
EOF
corpus="$root/triage/testdata/corpus"
if unshare -n true 2>/dev/null; then
	nonet=(unshare -n)
elif unshare -rn true 2>/dev/null; then
	nonet=(unshare -rn)
else
	echo "corpus.sh: cannot start a server without network (unshare -n, unshare -rn)" >&2
	exit 1
fi
while IFS=$'\t' read -r pkg versions bin args; do
	[[ -z "$pkg" || "$pkg" == \#* ]] && continue
	[[ -n "${1:-}" && "$pkg" != "$1"* ]] && continue
	for v in $versions; do
		out="$corpus/benign/${pkg#@}/$v.json"
		[[ -s "$out" ]] && continue
		dir="$scratch/$(echo "$pkg@$v" | tr '/@' '__')"
		if ! npm install --prefix "$dir" --no-audit --no-fund --ignore-scripts --loglevel=error "$pkg@$v" >/dev/null 2>"$dir.log"; then
			echo "skip $pkg@$v: install failed" >&2
			continue
		fi
		mkdir -p "$(dirname "$out")"
		# mcp-gsheets exits before initialize without Google service-account
		# settings and checks only that the key looks like a PEM block, so it
		# gets a dummy one (no key in it) and a dummy client address.
		# @tacticlaunch/mcp-linear exits without a Linear API token.
		# @runpod/mcp-server exits before initialize without a Runpod API
		# key (RUNPOD_API_KEY).
		# @infisical/mcp exits before initialize without a universal-auth
		# client id and secret (it signs in only when a tool is called).
		# minimax-mcp-js exits before initialize without a MiniMax API key,
		# deepseek-mcp-server 0.5.0 without a DeepSeek one, and
		# @owine/unifi-protect-mcp without a UniFi Protect host (a loopback
		# address nothing listens on) and API key. mcp-server-gsc exits
		# without GOOGLE_APPLICATION_CREDENTIALS and reads the file only when
		# a tool is called: it names a file that does not exist.
		# shellcheck disable=SC2086
		if ! (cd "$scratch" && "${nonet[@]}" env BRAVE_API_KEY=x SLACK_BOT_TOKEN=xoxb-x SLACK_TEAM_ID=T0 \
			GITHUB_PERSONAL_ACCESS_TOKEN=x GITLAB_PERSONAL_ACCESS_TOKEN=x FIRECRAWL_API_KEY=fc-x \
			TAVILY_API_KEY=tvly-x EXA_API_KEY=x NOTION_TOKEN=ntn_x FIGMA_API_KEY=x \
			PERPLEXITY_API_KEY=pplx-x PRIVATE_APP_ACCESS_TOKEN=pat-x \
			AIRTABLE_API_KEY=pat-x Z_AI_API_KEY=x Z_AI_MODE=ZAI ES_URL=http://127.0.0.1:9200 \
			ES_API_KEY=x API_TOKEN=x API_KEY=x SEARXNG_URL=http://127.0.0.1:8080 \
			AZURE_DEVOPS_ORG_URL=https://dev.azure.com/x AZURE_DEVOPS_AUTH_METHOD=pat AZURE_DEVOPS_PAT=x \
			DIGITALOCEAN_API_TOKEN=dop_v1_x ASANA_ACCESS_TOKEN=x CHANNEL_ACCESS_TOKEN=x DESTINATION_USER_ID=U0 \
			BACKLOG_DOMAIN=x.backlog.com BACKLOG_API_KEY=x POSTMAN_API_KEY=PMAK-x MAPBOX_ACCESS_TOKEN=pk.x \
			MORPH_API_KEY=x GITHUB_TOKEN=x BUGSNAG_AUTH_TOKEN=x COOLIFY_ACCESS_TOKEN=x COOLIFY_BASE_URL=http://127.0.0.1:8000 \
			ITERABLE_API_KEY=00000000000000000000000000000000 RESEND_API_KEY=re_x \
			TRELLO_API_KEY=x TRELLO_TOKEN=x \
			RUNPOD_API_KEY=x \
			INFISICAL_UNIVERSAL_AUTH_CLIENT_ID=x INFISICAL_UNIVERSAL_AUTH_CLIENT_SECRET=x \
			MINIMAX_API_KEY=x DEEPSEEK_API_KEY=x UNIFI_PROTECT_HOST=127.0.0.1 UNIFI_PROTECT_API_KEY=x \
			GOOGLE_APPLICATION_CREDENTIALS="$scratch/no-credentials.json" \
			GOOGLE_PRIVATE_KEY='-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----' \
			GOOGLE_CLIENT_EMAIL=x@x.iam.gserviceaccount.com GOOGLE_PROJECT_ID=x LINEAR_API_TOKEN=x \
			KUBECONFIG="$scratch/kubeconfig" FS_ROOT="$scratch/fs-root" HOME="$scratch" \
			node "$here/capture.mjs" "$dir/node_modules/.bin/$bin" ${args//\$FS_ROOT/$scratch/fs-root}) >"$scratch/capture.json"; then
			echo "skip $pkg@$v: no listing" >&2
			rm -f "$scratch/capture.json"
			continue
		fi
		# capture.mjs writes "tools": null when tools/list answers with an
		# error: that release lists nothing, so it is not recorded.
		if ! node -e 'process.exit(Array.isArray(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).tools) ? 0 : 1)' "$scratch/capture.json"; then
			echo "skip $pkg@$v: tools/list answered with an error" >&2
			rm -f "$scratch/capture.json"
			continue
		fi
		node -e '
			const [pkg, v, f] = process.argv.slice(1);
			const c = JSON.parse(require("fs").readFileSync(f, "utf8"));
			process.stdout.write(JSON.stringify({ package: pkg, version: v, ...c }, null, 1) + "\n");
		' "$pkg" "$v" "$scratch/capture.json" >"$out.tmp" && mv "$out.tmp" "$out"
		rm -f "$scratch/capture.json" "$dir.log"
		rm -rf "$dir"
		echo "$pkg@$v: $(node -e 'const c=require(process.argv[1]);console.log(c.tools.length+" tools")' "$out")"
	done
done < <(cat "$corpus/releases.tsv" "$corpus/releases-heldout.tsv")
