#!/usr/bin/env bash
# corpus.sh: record the benign half of the triage corpus
# (triage/testdata/corpus/benign) from real releases of public MCP servers.
# For each package@version in triage/testdata/corpus/releases.tsv it installs the
# release from the npm registry into a scratch directory (no install
# scripts), starts it over stdio with capture.mjs, and writes what a client
# reads (instructions, tools, prompts, resource templates, exactly as sent)
# to triage/testdata/corpus/benign/PACKAGE/VERSION.json (a release already
# recorded is kept; delete its file to record it again). The servers get dummy API
# keys: listing tools needs none, and nothing is called.
#
#   scripts/triage/corpus.sh [PACKAGE-PREFIX]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export npm_config_cache="${npm_config_cache:-$scratch/cache}"
mkdir -p "$scratch/fs-root"
while IFS=$'\t' read -r pkg versions bin args; do
	[[ -z "$pkg" || "$pkg" == \#* ]] && continue
	[[ -n "${1:-}" && "$pkg" != "$1"* ]] && continue
	for v in $versions; do
		out="$root/triage/testdata/corpus/benign/${pkg#@}/$v.json"
		[[ -s "$out" ]] && continue
		dir="$scratch/$(echo "$pkg@$v" | tr '/@' '__')"
		if ! npm install --prefix "$dir" --no-audit --no-fund --ignore-scripts --loglevel=error "$pkg@$v" >/dev/null 2>"$dir.log"; then
			echo "skip $pkg@$v: install failed" >&2
			continue
		fi
		mkdir -p "$(dirname "$out")"
		# shellcheck disable=SC2086
		if ! (cd "$scratch" && env BRAVE_API_KEY=x SLACK_BOT_TOKEN=xoxb-x SLACK_TEAM_ID=T0 \
			GITHUB_PERSONAL_ACCESS_TOKEN=x GITLAB_PERSONAL_ACCESS_TOKEN=x FIRECRAWL_API_KEY=fc-x \
			TAVILY_API_KEY=tvly-x FS_ROOT="$scratch/fs-root" HOME="$scratch" \
			node "$here/capture.mjs" "$dir/node_modules/.bin/$bin" ${args//\$FS_ROOT/$scratch/fs-root}) >"$scratch/capture.json"; then
			echo "skip $pkg@$v: no listing" >&2
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
done <"$root/triage/testdata/corpus/releases.tsv"
