#!/usr/bin/env bash
# Prints how much of agentgate branches heavily: every function whose
# cyclomatic complexity is over 20 (gocyclo's count, the version go.mod's
# tool block pins: 1 for the function, +1 for each if, for, case other
# than default, && and ||), one a line, most complex first, then the
# figure: functions over 20 per 1,000 lines.
#
# What counts: the .go files git tracks that are not _test.go files
# (product code, test support under internal/testing and the Go files of
# testdata alike); lines are all their lines, as wc -l counts them
# (comments and blank lines included).
#
# With CYCLO_MAX set (a number such as 1.0), the script fails (exit 1)
# when the figure is over it: the gate issue #28 asks for.
#
#     scripts/cyclo.sh                  # list and figure
#     CYCLO_MAX=1.0 scripts/cyclo.sh    # the same, failing above 1.0
set -euo pipefail
cd "$(dirname "$0")/.."

mapfile -t files < <(git ls-files '*.go' | grep -v '_test\.go$')
# gocyclo exits 1 when it lists a function: only a greater code is an error.
rc=0
raw=$(go tool gocyclo -over 20 "${files[@]}") || rc=$?
if [ "$rc" -gt 1 ]; then
  echo "cyclo: go tool gocyclo failed (exit $rc)" >&2
  exit 2
fi
over=$(printf '%s' "$raw" | LC_ALL=C sort -k1,1nr -k4,4)
n=0
[ -n "$over" ] && n=$(printf '%s\n' "$over" | wc -l)
lines=$(cat "${files[@]}" | wc -l)
[ -n "$over" ] && printf '%s\n' "$over"
figure=$(awk -v n="$n" -v l="$lines" 'BEGIN { printf "%.2f", n * 1000 / l }')
echo "cyclo: $n functions over 20 in $lines lines of ${#files[@]} non-test Go files: $figure per 1,000 lines"
if [ -n "${CYCLO_MAX:-}" ]; then
  if awk -v f="$figure" -v m="$CYCLO_MAX" 'BEGIN { exit !(f > m) }'; then
    echo "cyclo: $figure per 1,000 lines is over CYCLO_MAX=$CYCLO_MAX: split the functions above" >&2
    exit 1
  fi
fi
