//go:build agentgate_bench

package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"
)

// run executes argv once with stdout discarded and returns its wall time
// and peak RSS in bytes. An exit status other than want is an error, so a
// command that fails fast can never pass as fast.
func run(argv []string, want int) (time.Duration, int64, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		return 0, 0, fmt.Errorf("%s: %v", strings.Join(argv, " "), err)
	}
	if code != want {
		return 0, 0, fmt.Errorf("%s: exit status %d, want %d; stderr:\n%s", strings.Join(argv, " "), code, want, tail(stderr.String()))
	}
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss * 1024 // Linux reports KiB
	}
	return took, rss, nil
}

func tail(s string) string {
	if len(s) > 2000 {
		s = "..." + s[len(s)-2000:]
	}
	return s
}

// splitGroups splits args at "--" into command groups.
func splitGroups(args []string) [][]string {
	var groups [][]string
	for _, a := range args {
		if a == "--" {
			groups = append(groups, nil)
			continue
		}
		if len(groups) == 0 {
			groups = append(groups, nil)
		}
		groups[len(groups)-1] = append(groups[len(groups)-1], a)
	}
	return slices.DeleteFunc(groups, func(g []string) bool { return len(g) == 0 })
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }

func verdict(ratio, target float64) string {
	if ratio <= target {
		return "PASS"
	}
	return "FAIL"
}

func cmdRatio(args []string) error {
	fs := flag.NewFlagSet("ratio", flag.ContinueOnError)
	name := fs.String("name", "", "what is measured")
	target := fs.Float64("target", 0, "maximum ratio")
	runs := fs.Int("runs", 9, "measured runs of each command")
	bExit := fs.Int("b-exit", 0, "expected exit status of the B commands")
	if err := fs.Parse(args); err != nil {
		return err
	}
	groups := splitGroups(fs.Args())
	if len(groups) < 2 || *target <= 0 {
		return errors.New("want -target and at least two commands separated by --")
	}
	want := func(i int) int {
		if i == 0 {
			return 0
		}
		return *bExit
	}
	times := make([][]time.Duration, len(groups))
	for round := -1; round < *runs; round++ { // round -1 is the warm-up
		for k := range groups {
			i := (k + max(round, 0)) % len(groups) // rotate who goes first
			d, _, err := run(groups[i], want(i))
			if err != nil {
				return err
			}
			if round >= 0 {
				times[i] = append(times[i], d)
			}
		}
	}
	a := median(times[0])
	var b time.Duration
	var parts []string
	for i := 1; i < len(groups); i++ {
		m := median(times[i])
		b = max(b, m)
		parts = append(parts, ms(m))
	}
	r := float64(a) / float64(b)
	fmt.Printf("%s: %.2fx (target <= %.2fx) %s  [A %s; B %s; medians of %d alternated runs]\n",
		*name, r, *target, verdict(r, *target), ms(a), strings.Join(parts, ", "), *runs)
	return nil
}

func cmdRSS(args []string) error {
	fs := flag.NewFlagSet("rss", flag.ContinueOnError)
	name := fs.String("name", "", "what is measured")
	target := fs.Float64("target", 0, "maximum ratio of peak RSS to the listing")
	listing := fs.Int64("listing-bytes", 0, "bytes of the listing")
	runs := fs.Int("runs", 3, "runs (the highest peak counts)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	argv := fs.Args()
	if len(argv) == 0 || *listing <= 0 || *target <= 0 {
		return errors.New("want -target, -listing-bytes and a command")
	}
	var peak int64
	var times []time.Duration
	for range *runs {
		d, rss, err := run(argv, 0)
		if err != nil {
			return err
		}
		peak = max(peak, rss)
		times = append(times, d)
	}
	r := float64(peak) / float64(*listing)
	fmt.Printf("%s: %.2fx (target <= %.2fx) %s  [peak RSS %.1f MB, listing %.1f MB, median wall %s of %d runs]\n",
		*name, r, *target, verdict(r, *target), float64(peak)/1e6, float64(*listing)/1e6, ms(median(times)), *runs)
	return nil
}

// mustWrite writes data to path or exits.
func mustWrite(path string, data []byte) {
	if err := os.WriteFile(path, data, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "harness:", err)
		os.Exit(1)
	}
}
