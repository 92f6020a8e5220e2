package guard

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/agentgate/agentgate/internal/sys/pipes"
	"github.com/agentgate/agentgate/internal/testing/testenv"
)

// TestPipesWidened: guard widens the pipe it reads the server from
// (StartStdio) and its stdout when that is a pipe (Serve), to what
// internal/sys/pipes gives a fresh pipe on this OS (1 MiB on Linux by
// default, nothing elsewhere).
func TestPipesWidened(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	want, _ := pipes.Widen(r, pipes.Capacity)
	r.Close()
	w.Close()
	if runtime.GOOS == "linux" && want <= 64<<10 {
		t.Fatalf("a widened pipe holds %d bytes: not more than Linux's default", want)
	}

	up, err := StartStdio(fake(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := pipes.Widen(up.Out.(*os.File), 0); got != want {
		t.Errorf("the server's stdout pipe holds %d bytes, want %d", got, want)
	}
	up.In.Close()
	_ = up.Wait()

	inR, inW := io.Pipe()
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer outR.Close()
	exe, _ := os.Executable()
	t.Setenv("AGENTGATE_FAKESERVER", "1")
	code := make(chan int, 1)
	go func() {
		code <- Serve(context.Background(), []string{"--server", "fake", "--allow-unlocked",
			"--lockfile", filepath.Join(t.TempDir(), "none.lock"), "--", exe}, inR, outW, &testenv.SyncBuffer{}, nil)
		outW.Close()
	}()
	if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := bufio.NewReader(outR).ReadBytes('\n'); err != nil { // guard runs: its pipes are set
		t.Fatal(err)
	}
	if got, _ := pipes.Widen(outW, 0); got != want {
		t.Errorf("guard's stdout pipe holds %d bytes, want %d", got, want)
	}
	inW.Close()
	if c := <-code; c != ExitOK {
		t.Errorf("exit %d, want %d", c, ExitOK)
	}
}
