//go:build agentgate_bench

package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"

	"github.com/agentgate/agentgate/internal/sys/pipes"
)

// cmdRelay is the least any stdio proxy does, to measure guard against:
//
//	relay [-whole] [-pipe BYTES] -- CMD...
//
// It starts CMD and copies its stdin to CMD's (as it comes) and CMD's
// stdout to its own, each through a pipe of its own, as guard does. Without -whole the bytes stream through as they come (io.Copy:
// cat); with -whole each line of CMD's is read whole before any of it is
// written, with one write (store and forward, what a proxy that checks a
// message before the client sees it must do at least). -pipe sets the
// capacity of the pipes it reads and writes (internal/sys/pipes: Linux only).
func cmdRelay(args []string) error {
	fs := flag.NewFlagSet("relay", flag.ContinueOnError)
	whole := fs.Bool("whole", false, "read each line whole before writing it")
	pipe := fs.Int("pipe", 0, "pipe capacity in bytes (0: the OS default)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fmt.Errorf("want a command")
	}
	cmd := exec.Command(fs.Arg(0), fs.Args()[1:]...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe() // the requests take a hop through the relay too, as through guard
	if err != nil {
		return err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	cmd.Stdout = w
	if *pipe > 0 {
		for _, f := range []*os.File{r, os.Stdout} {
			if _, err := pipes.Widen(f, *pipe); err != nil {
				fmt.Fprintf(os.Stderr, "relay: widen a pipe: %v\n", err)
			}
		}
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	w.Close()
	go func() {
		_, _ = io.Copy(in, os.Stdin)
		in.Close()
	}()
	if !*whole {
		_, err = io.Copy(os.Stdout, r)
	} else {
		br := bufio.NewReaderSize(r, 64<<10)
		var line []byte
		for {
			line = line[:0]
			var chunk []byte
			for {
				chunk, err = br.ReadSlice('\n')
				line = append(line, chunk...)
				if err != bufio.ErrBufferFull {
					break
				}
			}
			if len(line) > 0 {
				if _, werr := os.Stdout.Write(line); werr != nil {
					break
				}
			}
			if err != nil {
				break
			}
		}
	}
	return cmd.Wait()
}
