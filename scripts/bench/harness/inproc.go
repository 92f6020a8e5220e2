//go:build agentgate_bench

package main

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"time"

	"github.com/agentgate/agentgate/internal/cli"
	"github.com/agentgate/agentgate/internal/testing/fakeserver"
	"github.com/agentgate/agentgate/lock"
	"github.com/agentgate/agentgate/render"
)

// startProfile starts a CPU profile written to path.
func startProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// timeIt returns the wall time of f, after a garbage collection so that
// one side does not pay for the other's garbage.
func timeIt(f func() error) (time.Duration, error) {
	runtime.GC()
	start := time.Now()
	err := f()
	return time.Since(start), err
}

// cmdHash compares canonicalise-and-hash with plain SHA-256 over the same
// bytes, on the fake server's 10,000 generated tools with 4 KB schemas:
//
//   - schemas: lock.HashInputSchema of every inputSchema vs sha256 of it;
//   - tools: lock.DecodeServer of the raw tools (each decoded, all three
//     hashes and the surfaceHash) vs sha256 of every raw tool.
//
// Each side runs -rounds times, alternated; the medians are compared.
func cmdHash(args []string) error {
	fs := flag.NewFlagSet("hash", flag.ContinueOnError)
	target := fs.Float64("target", 4, "maximum ratio")
	rounds := fs.Int("rounds", 9, "alternated rounds")
	n := fs.Int("generate", 10000, "tools")
	k := fs.Int("schema-bytes", 4096, "schema bytes")
	prof := fs.String("cpuprofile", "", "write a CPU profile to `file`")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *prof != "" {
		stop, err := startProfile(*prof)
		if err != nil {
			return err
		}
		defer stop()
	}
	raws := fakeserver.Generate(*n, *k)
	schemas := make([][]byte, len(raws))
	var schemaBytes, toolBytes int
	for i, r := range raws {
		var t struct {
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if err := json.Unmarshal(r, &t); err != nil {
			return err
		}
		schemas[i] = t.InputSchema
		schemaBytes += len(t.InputSchema)
		toolBytes += len(r)
	}
	var sink byte
	hashSchemas := func() error {
		for _, s := range schemas {
			h, err := lock.HashInputSchema(lock.Version1, s)
			if err != nil {
				return err
			}
			sink ^= h[0]
		}
		return nil
	}
	shaSchemas := func() error {
		for _, s := range schemas {
			h := sha256.Sum256(s)
			sink ^= h[0]
		}
		return nil
	}
	buildTools := func() error {
		s, _, err := lock.DecodeServer(lock.Version1, raws)
		if err != nil {
			return err
		}
		sink ^= s.SurfaceHash[0]
		return nil
	}
	shaTools := func() error {
		for _, r := range raws {
			h := sha256.Sum256(r)
			sink ^= h[0]
		}
		return nil
	}
	for _, c := range []struct {
		name   string
		bytes  int
		a, b   func() error
		target float64
	}{
		{"4 canonicalise+hash vs SHA-256 (HashInputSchema, 10,000 4 KB schemas)", schemaBytes, hashSchemas, shaSchemas, *target},
		{"4 decode+hash whole tools vs SHA-256 (DecodeServer, 10,000 tools)", toolBytes, buildTools, shaTools, *target},
	} {
		var ta, tb []time.Duration
		for r := -1; r < *rounds; r++ {
			first, second := c.a, c.b
			if r%2 != 0 {
				first, second = c.b, c.a
			}
			d1, err := timeIt(first)
			if err != nil {
				return err
			}
			d2, err := timeIt(second)
			if err != nil {
				return err
			}
			if r < 0 {
				continue
			}
			if r%2 != 0 {
				d1, d2 = d2, d1
			}
			ta, tb = append(ta, d1), append(tb, d2)
		}
		a, b := median(ta), median(tb)
		ratio := float64(a) / float64(b)
		fmt.Printf("%s: %.2fx (target <= %.2fx) %s  [%.0f MB/s vs %.0f MB/s over %.1f MB; medians of %d]\n",
			c.name, ratio, c.target, verdict(ratio, c.target),
			float64(c.bytes)/a.Seconds()/1e6, float64(c.bytes)/b.Seconds()/1e6, float64(c.bytes)/1e6, *rounds)
	}
	_ = sink
	return nil
}

// cmdRender times what agentgate diff renders for two lockfiles (parse
// both, compare, summary with the live definitions, unified diff) against
// `git diff --no-index` on the same two files, alternated.
func cmdRender(args []string) error {
	fs := flag.NewFlagSet("render", flag.ContinueOnError)
	target := fs.Float64("target", 2, "maximum ratio")
	runs := fs.Int("runs", 9, "alternated runs")
	dir := fs.String("dir", "", "directory for a.lock and b.lock")
	n := fs.Int("tools", 10000, "tools")
	prof := fs.String("cpuprofile", "", "write a CPU profile of the agentgate side to `file`")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *prof != "" {
		stop, err := startProfile(*prof)
		if err != nil {
			return err
		}
		defer stop()
	}
	if *dir == "" {
		return errors.New("want -dir")
	}
	a, b, live := lockPair(*n)
	pa, pb := writeLockPair(*dir, a, b)
	var outBytes int
	agentgate := func() error {
		la, err := lock.Parse(a)
		if err != nil {
			return err
		}
		lb, err := lock.Parse(b)
		if err != nil {
			return err
		}
		d := lock.Compare(la, lb)
		s := render.Summary(d, live, false)
		u := render.UnifiedDiff(a, b, "a/agentgate.lock", "b/agentgate.lock", false)
		if s == "" || u == "" {
			return errors.New("empty summary or diff")
		}
		outBytes = len(s) + len(u)
		return nil
	}
	gitArgv := []string{"git", "-c", "core.pager=cat", "diff", "--no-index", "--no-color", pa, pb}
	gitDiff := func() error {
		cmd := exec.Command(gitArgv[0], gitArgv[1:]...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 {
			return fmt.Errorf("git diff --no-index: want exit status 1 (files differ), got %v", err)
		}
		return nil
	}
	var ta, tb []time.Duration
	for r := -1; r < *runs; r++ {
		d1, err := timeIt(agentgate)
		if err != nil {
			return err
		}
		d2, err := timeIt(gitDiff)
		if err != nil {
			return err
		}
		if r >= 0 {
			ta, tb = append(ta, d1), append(tb, d2)
		}
	}
	ma, mb := median(ta), median(tb)
	ratio := float64(ma) / float64(mb)
	fmt.Printf("5 diff+summary of two %d-tool lockfiles vs git diff --no-index: %.2fx (target <= %.2fx) %s  [A %s; git %s; %d and %d bytes in, %d bytes out; medians of %d]\n",
		*n, ratio, *target, verdict(ratio, *target), ms(ma), ms(mb), len(a), len(b), outBytes, *runs)
	return nil
}

// cmdProfile runs agentgate's cli.Main in process -n times with the given
// arguments, in the working directory, under a CPU profile.
func cmdProfile(args []string) error {
	fs := flag.NewFlagSet("profile", flag.ContinueOnError)
	out := fs.String("o", "cpu.prof", "profile `file`")
	n := fs.Int("n", 50, "iterations")
	if err := fs.Parse(args); err != nil {
		return err
	}
	stop, err := startProfile(*out)
	if err != nil {
		return err
	}
	defer stop()
	start := time.Now()
	for range *n {
		if code := cli.Main(context.Background(), fs.Args(), io.Discard, io.Discard); code != 0 {
			return fmt.Errorf("agentgate %v: exit status %d", fs.Args(), code)
		}
	}
	fmt.Printf("%s per run\n", ms(time.Since(start)/time.Duration(*n)))
	return nil
}
