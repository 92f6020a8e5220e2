package gitint

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentgate/agentgate/internal/testing/testenv"
)

// The benchmark repository: 10,000 commits over 2,000 files in 100
// directories plus a 50 kB agentgate.lock, built once with git fast-import,
// with a staged change to the lockfile and the cached trees rewritten, as
// git commit leaves them for the pre-commit hook.
var (
	benchOnce sync.Once
	benchDir  string
	benchErr  error
	benchTmp  []string // removed by TestMain
)

const benchCommits = 10000

func benchRepo(b *testing.B) string {
	b.Helper()
	benchOnce.Do(func() {
		tmp, err := os.MkdirTemp("", "gitint-bench-")
		if err != nil {
			benchErr = err
			return
		}
		benchTmp = append(benchTmp, tmp)
		benchDir, benchErr = buildBenchRepo(tmp)
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchDir
}

func buildBenchRepo(tmp string) (string, error) {
	dir := filepath.Join(tmp, "repo")
	gitc := func(stdin func(w *bufio.Writer), args ...string) error {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = testenv.GitEnv()
		if stdin != nil {
			pr, pw, err := os.Pipe()
			if err != nil {
				return err
			}
			cmd.Stdin = pr
			go func() {
				w := bufio.NewWriterSize(pw, 1<<20)
				stdin(w)
				w.Flush()
				pw.Close()
			}()
			defer pr.Close()
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := gitc(nil, "init", "-q", "-b", "main"); err != nil {
		return "", err
	}
	var lock strings.Builder
	for i := 0; i < 500; i++ {
		fmt.Fprintf(&lock, "        {\n          \"name\": \"tool_%04d\",\n          \"nameHash\": \"%064x\"\n        },\n", i, i)
	}
	err := gitc(func(w *bufio.Writer) {
		blob := func(s string) {
			fmt.Fprintf(w, "data %d\n%s\n", len(s), s)
		}
		for c := 0; c < benchCommits; c++ {
			fmt.Fprintf(w, "commit refs/heads/main\ncommitter T <t@example.com> %d +0000\n", 1700000000+c)
			blob(fmt.Sprintf("commit %d", c))
			if c == 0 {
				for f := 0; f < 2000; f++ {
					fmt.Fprintf(w, "M 100644 inline dir%03d/file%04d.txt\n", f%100, f)
					blob(fmt.Sprintf("file %d\n", f))
				}
				w.WriteString("M 100644 inline .mcp.json\n")
				blob("{}\n")
			} else {
				f := c % 2000
				fmt.Fprintf(w, "M 100644 inline dir%03d/file%04d.txt\n", f%100, f)
				blob(fmt.Sprintf("file %d version %d\n", f, c))
			}
			if c%100 == 0 {
				w.WriteString("M 100644 inline agentgate.lock\n")
				blob(fmt.Sprintf("{\n  \"version\": %d,\n%s}\n", c, lock.String()))
			}
		}
	}, "fast-import", "--quiet")
	if err != nil {
		return "", err
	}
	if err := gitc(nil, "checkout", "-q", "-f", "main"); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "agentgate.lock"), []byte(lock.String()+"staged\n"), 0o644); err != nil {
		return "", err
	}
	if err := gitc(nil, "add", "agentgate.lock"); err != nil {
		return "", err
	}
	if err := gitc(nil, "write-tree"); err != nil {
		return "", err
	}
	return dir, nil
}

func BenchmarkOpenAndReadHEAD(b *testing.B) {
	dir := benchRepo(b)
	b.ResetTimer()
	for b.Loop() {
		r, err := Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		if _, ok, err := r.FileAt("HEAD", "agentgate.lock"); err != nil || !ok {
			b.Fatal(ok, err)
		}
		r.Close()
	}
}

// BenchmarkCommitHook is what the pre-commit hook does on every commit.
func BenchmarkCommitHook(b *testing.B) {
	dir := benchRepo(b)
	b.ResetTimer()
	defer testenv.ReportCPU(b)()
	for b.Loop() {
		r, err := Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		if _, ok, err := r.FileInIndex("agentgate.lock"); err != nil || !ok {
			b.Fatal(ok, err)
		}
		if _, ok, err := r.FileAt("HEAD", "agentgate.lock"); err != nil || !ok {
			b.Fatal(ok, err)
		}
		ch, err := r.StagedChanges(isConfig)
		if err != nil || len(ch) != 1 {
			b.Fatal(ch, err)
		}
		r.Close()
	}
}

// BenchmarkHookOffline is what "agentgate hook" asks of gitint when no
// config or lockfile change is staged: open, the staged changes among the
// config paths, and the staged lockfile.
func BenchmarkHookOffline(b *testing.B) {
	dir := benchRepo(b)
	b.ResetTimer()
	defer testenv.ReportCPU(b)()
	for b.Loop() {
		r, err := Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := r.StagedChanges(isConfig); err != nil {
			b.Fatal(err)
		}
		if _, ok, err := r.FileInIndex("agentgate.lock"); err != nil || !ok {
			b.Fatal(ok, err)
		}
		r.Close()
	}
}

// BenchmarkCommitHookNoCachedTrees is the hook's work when the index has no
// usable cached trees (a full walk of HEAD's tree).
func BenchmarkCommitHookNoCachedTrees(b *testing.B) {
	dir := benchRepo(b)
	b.ResetTimer()
	for b.Loop() {
		r, err := Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		idx, err := r.index()
		if err != nil {
			b.Fatal(err)
		}
		idx.trees = nil
		ch, err := r.StagedChanges(isConfig)
		if err != nil || len(ch) != 1 {
			b.Fatal(ch, err)
		}
		r.Close()
	}
}

// BenchmarkGitShowHEAD is the yardstick: git show HEAD:agentgate.lock.
func BenchmarkGitShowHEAD(b *testing.B) {
	dir := benchRepo(b)
	b.ResetTimer()
	for b.Loop() {
		cmd := exec.Command("git", "show", "HEAD:agentgate.lock")
		cmd.Dir = dir
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkApplyDelta applies a delta of 2,000 instructions (a copy of 32
// bytes at a 3-byte offset, then a 4-byte insert, as an edited lockfile's
// delta looks) to a 64 KiB base.
func BenchmarkApplyDelta(b *testing.B) {
	base := make([]byte, 64<<10)
	for i := range base {
		base[i] = byte(i * 7)
	}
	n := 2000
	dst := n * (32 + 4)
	delta := []byte{0x80, 0x80, 0x04} // 65536
	for v := dst; ; v >>= 7 {
		if v < 0x80 {
			delta = append(delta, byte(v))
			break
		}
		delta = append(delta, byte(v&0x7f)|0x80)
	}
	for i := range n {
		off := i * 32 % (len(base) - 32)
		delta = append(delta, 0x80|0x07|0x10, byte(off), byte(off>>8), byte(off>>16), 32)
		delta = append(delta, 4, 'e', 'd', 'i', 't')
	}
	b.SetBytes(int64(dst))
	for b.Loop() {
		out, err := applyDelta(base, delta)
		if err != nil || len(out) != dst {
			b.Fatalf("%d bytes, %v", len(out), err)
		}
	}
}
