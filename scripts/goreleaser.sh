#!/usr/bin/env bash
# Installs GoReleaser (from the Go module proxy, pinned below) into a cache
# directory once, then runs it on .goreleaser.yaml:
#
#   scripts/goreleaser.sh check      # goreleaser check: the config is valid
#   scripts/goreleaser.sh snapshot   # goreleaser release --snapshot --clean, unsigned:
#                                    # every archive, package and SBOM and the
#                                    # checksums in dist/, then verify-dist
#   scripts/goreleaser.sh verify-dist # check dist/ (installs nothing): 6 archives
#                                    # each with man pages and completions, deb and
#                                    # rpm for amd64 and arm64, an SBOM per archive
#                                    # and package, checksums that verify
#   scripts/goreleaser.sh installed  # exit 0 if it is in the cache (installs nothing)
#
# Publishes nothing. The install is a large build (measured on this project's
# 2-core machine at load average ~25: 37.5 minutes wall, 5.4 CPU-minutes), so
# scripts/test.sh runs `check` only when it is cached or AGENTGATE_GORELEASER=1;
# CI's release-config job runs the same version from its release binary.
# The cache is $AGENTGATE_TOOLS, else $XDG_CACHE_HOME/agentgate-tools, else
# ~/.cache/agentgate-tools.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=${GORELEASER_VERSION:-v2.15.1}
CACHE=${AGENTGATE_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/agentgate-tools}
BIN=$CACHE/goreleaser-$VERSION
GR=$BIN/goreleaser
# verify_dist checks what a snapshot or a release left in dist/.
verify_dist() {
	local fail=0 n a list f
	n=$(find dist -maxdepth 1 \( -name '*.tar.gz' -o -name '*.zip' \) | wc -l)
	[ "$n" = 6 ] || { echo "verify-dist: want 6 archives in dist/, got $n" >&2; fail=1; }
	for a in dist/*.tar.gz dist/*.zip; do
		[ -f "$a" ] || continue
		case "$a" in
		*.tar.gz) list=$(tar -tzf "$a") ;;
		*.zip) list=$(python3 -c 'import sys, zipfile; print("\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))' "$a") ;;
		esac
		for f in LICENSE man/agentgate.1.gz man/agentgate-lock.1.gz man/git-agentgate.1.gz \
			completions/agentgate.bash completions/agentgate.zsh completions/agentgate.fish completions/agentgate.ps1; do
			grep -qx "$f" <<<"$list" || { echo "verify-dist: $a has no $f" >&2; fail=1; }
		done
		[ -n "${NO_SBOM:-}" ] || [ -f "$a.sbom.json" ] || { echo "verify-dist: no SBOM $a.sbom.json" >&2; fail=1; }
	done
	for f in amd64.deb arm64.deb x86_64.rpm aarch64.rpm; do
		a=$(find dist -maxdepth 1 -name "agentgate*[_.]$f")
		n=$(grep -c . <<<"$a" || true)
		[ "$n" = 1 ] || { echo "verify-dist: want one agentgate*$f in dist/, got $n" >&2; fail=1; continue; }
		[ -n "${NO_SBOM:-}" ] || [ -f "$a.sbom.json" ] || { echo "verify-dist: no SBOM $a.sbom.json" >&2; fail=1; }
	done
	(cd dist && sha256sum -c --quiet ./*_checksums.txt) || fail=1
	return $fail
}
case ${1:-} in
installed)
	[ -x "$GR" ]
	exit
	;;
verify-dist)
	verify_dist
	exit
	;;
esac
if [ ! -x "$GR" ]; then
	echo "scripts/goreleaser.sh: installing goreleaser $VERSION into $BIN (once; it takes a while)" >&2
	mkdir -p "$BIN"
	# A temporary module directory, so that this repository's go.mod is not
	# touched; GOFLAGS cleared so a -mod setting cannot interfere.
	(cd "$(mktemp -d)" && GOFLAGS='' GOBIN=$BIN go install "github.com/goreleaser/goreleaser/v2@$VERSION")
fi
case ${1:-check} in
check)
	"$GR" check
	;;
snapshot)
	# Unsigned: keyless signing needs a CI identity. The SBOMs need syft
	# (the release workflow installs it).
	NO_SBOM=
	command -v syft >/dev/null || { echo "scripts/goreleaser.sh: syft is not on PATH: a snapshot without SBOMs" >&2; NO_SBOM=1; }
	"$GR" release --snapshot --clean --skip=publish,sign${NO_SBOM:+,sbom}
	verify_dist
	;;
*)
	echo "usage: scripts/goreleaser.sh check|snapshot|verify-dist|installed" >&2
	exit 2
	;;
esac
