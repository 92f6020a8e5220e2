//go:build unix

package testenv

import (
	"syscall"
	"testing"
)

// ReportCPU adds a cpu-ns/op metric to a benchmark: the process's user
// and system CPU time (getrusage, not counting child processes such as
// the git commands a set-up runs) from the call to the returned
// function's, divided by b.N. Call it after the set-up, as
//
//	defer testenv.ReportCPU(b)()
//
// On a loaded machine the wall clock (ns/op) measures the queue for the
// CPU; CPU time does not (docs/PERFORMANCE.md). Run with GOMAXPROCS=1 so
// that the garbage collector's work is not spread over idle threads'
// time differently between runs; it is counted either way.
func ReportCPU(b *testing.B) func() {
	start := cpuNow()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64(cpuNow()-start)/float64(b.N), "cpu-ns/op")
		}
	}
}

func cpuNow() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
