package fakeserver

import (
	"os"
	"strconv"
	"strings"
)

// ReadLog reads the file a fake started with -log FILE wrote: the methods
// it received, in order, and the pids it reported (its own first, then
// its children's). err is the read's error (the fake never started).
func ReadLog(path string) (methods []string, pids []int, err error) {
	data, err := os.ReadFile(path)
	for _, line := range strings.Split(string(data), "\n") {
		k, v, _ := strings.Cut(line, " ")
		switch k {
		case "method":
			methods = append(methods, v)
		case "pid", "child":
			n, _ := strconv.Atoi(v)
			pids = append(pids, n)
		}
	}
	return methods, pids, err
}
