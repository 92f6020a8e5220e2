#!/usr/bin/env bash
# CPU time per operation of one Go benchmark in two test binaries, for a
# loaded machine where wall-clock benchmarks move several-fold between runs
# (docs/PERFORMANCE.md, "One JSON reader in lock/"). Each round runs both
# binaries alternately with GOMAXPROCS=1 under /usr/bin/time, once for N
# iterations and once for 1, and takes (cpu(N) - cpu(1)) / (N - 1) so that
# start-up and set-up cancel; it prints the median, low and high over the
# rounds for each binary and the ratio of the medians. /usr/bin/time counts
# in 10 ms: choose N so that a run takes a second or more of CPU.
#
#   go test -c -o /tmp/old.test ./lock     # on the old commit
#   go test -c -o /tmp/new.test ./lock     # on the new one
#   scripts/bench/cpu.sh /tmp/old.test /tmp/new.test '^BenchmarkParseV2$' 200 [ROUNDS]
#
# Run it from the package's directory when the benchmark reads testdata.
set -euo pipefail
OLD=$1 NEW=$2 BENCH=$3 N=$4 ROUNDS=${5:-7}
cpu() { # cpu BIN ITERATIONS: user+sys seconds
	GOMAXPROCS=1 /usr/bin/time -f '%U %S' -o "$T.time" "$1" -test.run '^$' -test.bench "$BENCH" \
		-test.benchtime "${2}x" -test.count 1 >"$T.out" 2>&1 || { cat "$T.out" >&2; exit 1; }
	grep -q "^Benchmark" "$T.out" || { echo "cpu.sh: no benchmark matches $BENCH" >&2; exit 1; }
	awk '{print $1 + $2}' "$T.time"
}
T=$(mktemp)
trap 'rm -f "$T" "$T.out" "$T.time"' EXIT
per() { # per BIN: microseconds per operation
	local a b
	a=$(cpu "$1" "$N")
	b=$(cpu "$1" 1)
	awk -v a="$a" -v b="$b" -v n="$N" 'BEGIN { printf "%.1f\n", (a - b) / (n - 1) * 1e6 }'
}
o=() n=()
for _ in $(seq "$ROUNDS"); do
	o+=("$(per "$OLD")")
	n+=("$(per "$NEW")")
done
stats() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { printf "%s %s %s", v[int((NR + 1) / 2)], v[1], v[NR] }'; }
read -r om ol oh <<<"$(stats "${o[@]}")"
read -r nm nl nh <<<"$(stats "${n[@]}")"
awk -v b="$BENCH" -v om="$om" -v ol="$ol" -v oh="$oh" -v nm="$nm" -v nl="$nl" -v nh="$nh" -v r="$ROUNDS" 'BEGIN {
	printf "%s CPU us/op, medians of %d rounds: old %s (%s-%s), new %s (%s-%s), new/old %.2fx\n", b, r, om, ol, oh, nm, nl, nh, nm / om }'
