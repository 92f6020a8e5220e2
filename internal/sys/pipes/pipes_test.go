package pipes

import (
	"os"
	"runtime"
	"testing"
)

func TestWiden(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	got, err := Widen(r, Capacity)
	if runtime.GOOS != "linux" {
		if got != 0 || err != nil {
			t.Fatalf("Widen = %d, %v; want 0, nil off Linux", got, err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	// Linux's pipe-max-size default is 1 MiB; a pipe holds a power of two
	// pages, at least what was asked when that is allowed.
	if want := min(Capacity, maxSize()); got < want || size(r) != got || size(w) != got {
		t.Fatalf("capacity %d after Widen (size %d, %d), want at least %d", got, size(r), size(w), want)
	}
	// The pipe now takes that many bytes without a reader (a write would
	// block at 64 KiB without Widen): the whole write completes at once.
	if n, err := w.Write(make([]byte, got)); err != nil || n != got {
		t.Fatalf("write of %d bytes into the widened pipe: %d, %v", got, n, err)
	}
	// Asking for less never shrinks it; a file that is not a pipe is left alone.
	if again, err := Widen(w, 4096); err != nil || again != got {
		t.Fatalf("Widen(smaller) = %d, %v; want %d, nil", again, err, got)
	}
	f, err := os.CreateTemp(t.TempDir(), "x")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if n, err := Widen(f, Capacity); n != 0 || err != nil || size(f) != 0 {
		t.Fatalf("Widen(regular file) = %d, %v (size %d); want 0, nil (0)", n, err, size(f))
	}
}

// size is the capacity of the pipe f is an end of (0 for another file).
func size(f *os.File) int {
	n, _ := Widen(f, 0)
	return n
}
