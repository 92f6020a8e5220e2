# npm_ci DIR: install DIR's pinned packages (package-lock.json) unless the
# same lockfile was already installed completely. A marker written after a
# successful `npm ci` records the lockfile's hash, so an interrupted install
# (npm ci empties node_modules first) is never mistaken for a finished one.
npm_ci() {
	local dir=$1 want have=""
	want=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
	[ -f "$dir/node_modules/.agentgate-installed" ] && have=$(cat "$dir/node_modules/.agentgate-installed")
	if [ "$want" != "$have" ]; then
		npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error >&2
		echo "$want" >"$dir/node_modules/.agentgate-installed"
	fi
}
