//go:build agentgate_bench

// Command harness is scripts/bench.sh's timing and fixture tool. It is
// behind the agentgate_bench build tag so that `go install ./...` (what the
// pre-commit framework runs) never installs it as a product binary.
//
// Subcommands:
//
//	ratio   -name S -target R [-runs N] [-b-exit C] -- A... -- B1... [-- B2...]
//	        runs A and every B alternately N times (after one warm-up each;
//	        the order rotates every round), checks their exit status, and
//	        prints the median of each and median(A) / max(median(Bi)).
//	rss     -name S -target R -listing-bytes N [-runs N] -- CMD...
//	        runs CMD N times and prints its peak RSS (getrusage ru_maxrss)
//	        divided by N listing bytes.
//	hash    -target R [-rounds N]
//	        canonicalise-and-hash throughput vs plain SHA-256 over the same
//	        bytes (testing.Benchmark, alternated), on 10,000 generated tools
//	        with 4 KB schemas.
//	render  -target R [-runs N] A.lock B.lock
//	        parse, compare, summary and unified diff of two lockfiles in
//	        process, alternated with `git diff --no-index A B`.
//	genrepo -dir D [-commits N] [-tools N]
//	        a repository of N commits (git fast-import) with a lockfile of
//	        N tools and the .mcp.json that configures its servers.
//	genlocks -dir D [-tools N]
//	        a.lock and b.lock: N tools that differ in 3 (one reworded, one
//	        removed, one added).
//	listing-bytes -generate N -schema-bytes K [-page-size P]
//	        the bytes of the fake server's tools/list results.
//	bare    CMD...
//	        the least a client does: start a stdio MCP server, initialize,
//	        one tools/list, SIGKILL its process group (issue #9's yardstick).
//	phases  CMD...
//	        start a stdio MCP server and time its start-up and initialize,
//	        one tools/list, and its exit after stdin closes.
//	profile -o FILE [-n N] -- ARGS...
//	        run agentgate ARGS in process N times under a CPU profile.
//	rtt     -name S -target R -method ping|tools/list [-n N] --- A... --- B...
//	        request round trips on two long-running stdio servers,
//	        alternated one request at a time; median(A) / median(B).
//	relay   [-whole] [-pipe BYTES] -- CMD...
//	        the least a stdio proxy does, as a floor for guard: start CMD and
//	        copy the bytes both ways, streaming or (-whole) each line of
//	        CMD's read whole before it is written; -pipe widens the pipes.
//	npm-registry -url-file F DIR...
//	        pack the npm package directories and serve them as a loopback
//	        npm registry (internal/testing/npmregistry) until SIGTERM; its
//	        URL goes to F.
//	fakeserver ARGS...
//	        the fake MCP server (internal/demo's server, run by internal/testing/fakeserver), e.g. -generate 10000.
//
// Every line it prints for a target ends in PASS or FAIL.
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: harness ratio|rss|hash|render|genrepo|genlocks|listing-bytes|phases|rtt|relay|npm-registry|fakeserver ...")
		os.Exit(2)
	}
	var err error
	args := os.Args[2:]
	switch os.Args[1] {
	case "ratio":
		err = cmdRatio(args)
	case "rss":
		err = cmdRSS(args)
	case "hash":
		err = cmdHash(args)
	case "render":
		err = cmdRender(args)
	case "genrepo":
		err = cmdGenRepo(args)
	case "genlocks":
		err = cmdGenLocks(args)
	case "listing-bytes":
		err = cmdListingBytes(args)
	case "profile":
		err = cmdProfile(args)
	case "phases":
		err = cmdPhases(args)
	case "bare":
		err = cmdBare(args)
	case "relay":
		err = cmdRelay(args)
	case "rtt":
		err = cmdRTT(args)
	case "npm-registry":
		err = cmdNPMRegistry(args)
	case "fakeserver":
		os.Exit(runFake(args))
	default:
		err = fmt.Errorf("unknown subcommand %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "harness %s: error: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}
