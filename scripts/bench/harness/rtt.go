//go:build agentgate_bench

package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"
	"time"
)

// cmdRTT times request round trips on long-running stdio servers:
//
//	rtt -name S -target R -method ping|tools/list [-n N] --- A... --- B...
//
// It starts A and B (each a stdio MCP server's command line, e.g. guard
// in front of a server, and the same server alone), initializes both,
// warms each up with 20 requests, then sends N requests to each,
// alternating A and B one request at a time (who goes first rotates), and
// prints median(A) / median(B) of the round trips with PASS or FAIL (and,
// for information, the quartiles of each side and of the ratio of each
// round's two requests). The
// first tools/list replies of A and B must list the same number of tools
// (more than zero), so that a guard that withholds tools cannot pass as
// fast.
func cmdRTT(args []string) error {
	fs := flag.NewFlagSet("rtt", flag.ContinueOnError)
	name := fs.String("name", "", "what is measured")
	target := fs.Float64("target", 0, "maximum ratio")
	method := fs.String("method", "ping", "ping or tools/list")
	n := fs.Int("n", 200, "measured requests to each server")
	// "---" separates the commands: guard's own command line has "--".
	rest := []string{}
	if i := slices.Index(args, "---"); i >= 0 {
		args, rest = args[:i], args[i:]
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	var groups [][]string
	for _, a := range rest {
		if a == "---" {
			groups = append(groups, nil)
		} else if len(groups) > 0 {
			groups[len(groups)-1] = append(groups[len(groups)-1], a)
		}
	}
	if len(groups) != 2 || len(groups[0]) == 0 || len(groups[1]) == 0 || *target <= 0 {
		return errors.New("want -target and two commands, each after ---")
	}
	var servers [2]*rawServer
	for i, g := range groups {
		s, err := startRaw(g)
		if err != nil {
			return err
		}
		defer s.kill()
		if err := s.initialize(); err != nil {
			return fmt.Errorf("%s: %v", strings.Join(g, " "), err)
		}
		s.send(msgInitialized)
		servers[i] = s
	}
	if *method == "tools/list" {
		var counts [2]int
		for i, s := range servers {
			line, err := s.call(*method, "count")
			if err != nil {
				return err
			}
			var v struct {
				Result struct{ Tools []json.RawMessage }
			}
			if err := json.Unmarshal(line, &v); err != nil {
				return fmt.Errorf("tools/list reply: %v", err)
			}
			counts[i] = len(v.Result.Tools)
		}
		if counts[0] == 0 || counts[0] != counts[1] {
			return fmt.Errorf("A lists %d tools, B %d: not the same listing", counts[0], counts[1])
		}
	}
	times := [2][]time.Duration{}
	for round := -20; round < *n; round++ {
		for k := range 2 {
			i := (k + max(round, 0)) % 2
			t0 := time.Now()
			if _, err := servers[i].call(*method, fmt.Sprintf(`"r%d"`, round)); err != nil {
				return err
			}
			if round >= 0 {
				times[i] = append(times[i], time.Since(t0))
			}
		}
	}
	a, b := median(times[0]), median(times[1])
	r := float64(a) / float64(b)
	// For information, how stable the figure is: each side's quartiles,
	// and the quartiles of the ratio of the two requests of each round
	// (sent one after the other, so under the same load).
	pairs := make([]float64, *n)
	for i := range pairs {
		pairs[i] = float64(times[0][i]) / float64(times[1][i])
	}
	slices.Sort(pairs)
	q := func(ds []time.Duration) string {
		s := slices.Sorted(slices.Values(ds))
		return fmt.Sprintf("%.0f-%.0f", float64(s[len(s)/4])/1e3, float64(s[len(s)*3/4])/1e3)
	}
	fmt.Printf("%s: %.2fx (target <= %.2fx) %s  [A %s; B %s; median round trips of %d alternated requests; quartiles A %s, B %s µs; per round A/B %.2fx, quartiles %.2f-%.2f]\n",
		*name, r, *target, verdict(r, *target), us(a), us(b), *n, q(times[0]), q(times[1]), pairs[*n/2], pairs[*n/4], pairs[*n*3/4])
	return nil
}

// call sends one request with the JSON id and returns its reply, which
// must be a result.
func (s *rawServer) call(method, id string) ([]byte, error) {
	if !strings.HasPrefix(id, `"`) {
		id = `"` + id + `"`
	}
	s.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `"}`)
	line, err := s.reply(id)
	if err != nil {
		return nil, err
	}
	if !strings.Contains(string(line), `"result"`) {
		return nil, fmt.Errorf("%s: not a result: %.300s", method, line)
	}
	return line, nil
}

func us(d time.Duration) string { return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond)) }
