#!/usr/bin/env bash
# Runs every Go fuzz target in the module for a bounded time each.
#
#   scripts/fuzz.sh [seconds-per-target]     (default 10)
#
# Targets are discovered, not listed by hand: `go test -list '^Fuzz'` over
# every package, so a new FuzzXxx function is fuzzed without editing this
# script. Each target runs alone (`-run '^$' -fuzz '^Name$' -fuzztime Ns
# -fuzzminimizetime N/4s`)
# because go test fuzzes one target per invocation. A failing input is
# written by go test to <package>/testdata/fuzz/<Name>/ (commit it: it then
# runs as a seed in every plain `go test`). Exit status: 0 when every
# target ran clean, 1 when any failed, 2 on bad usage or when no target
# was found.
set -euo pipefail
cd "$(dirname "$0")/.."

secs=${1:-10}
if ! [[ $secs =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: scripts/fuzz.sh [seconds-per-target]  (a positive integer, default 10)" >&2
  exit 2
fi

# "pkg Name" lines: go test -list prints a package's matching names, then
# its "ok  <pkg>" line.
listing=$(go test -list '^Fuzz' ./...)
targets=$(awk '
  /^Fuzz[A-Za-z0-9_]*$/ { names[n++] = $1; next }
  /^ok[ \t]/ { for (i = 0; i < n; i++) print $2, names[i]; n = 0 }
' <<<"$listing" | sort)

if [ -z "$targets" ]; then
  echo "scripts/fuzz.sh: no fuzz targets found (go test -list '^Fuzz' ./...)" >&2
  exit 2
fi

# Minimising a new interesting input must end well before -fuzztime does:
# go test fails a target with "context deadline exceeded" when -fuzztime
# runs out during a minimisation (default bound: 60s).
minimize=$(( secs / 4 > 0 ? secs / 4 : 1 ))

count=$(wc -l <<<"$targets")
echo "scripts/fuzz.sh: $count targets, ${secs}s each"
failed=()
while read -r pkg name; do
  echo "=== $pkg $name"
  if ! go test -run '^$' -fuzz "^${name}\$" -fuzztime "${secs}s" -fuzzminimizetime "${minimize}s" "$pkg"; then
    failed+=("$pkg $name")
  fi
done <<<"$targets"

if [ ${#failed[@]} -gt 0 ]; then
  echo "scripts/fuzz.sh: ${#failed[@]} of $count targets failed:" >&2
  printf '  %s\n' "${failed[@]}" >&2
  echo "scripts/fuzz.sh: hint: the failing inputs are in <package>/testdata/fuzz/<target>/; rerun one with go test -run '<target>/<file>' <package>" >&2
  exit 1
fi
echo "scripts/fuzz.sh: all $count targets ran ${secs}s without a failure"
