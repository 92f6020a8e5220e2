package lock_test

import (
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/agentgate/agentgate/internal/safetext"
	"github.com/agentgate/agentgate/lock"
)

// hiddenNames are tool names carrying one character of each kind on
// internal/safetext's list (issue #13 bug 2: tag characters were written raw).
var hiddenNames = []string{
	"tag\U000E0041\U000E0042", "bidi\u202e", "rlm\u200f", "zw\u200b", "bom\ufeff", "sep\u2028", "psep\u2029",
	"pua\ue000", "pua16\U0010fffd", "shy\u00ad", "vs\ufe0f", "vs256\U000E0100", "hangul\u3164",
	"ctl\u0085", "del\u007f", "esc\x1b[2J", "mongol\u180e", "quote\"back\\",
}

// lockfileWith formats a lockfile with one server whose tools are named
// names.
func lockfileWith(t *testing.T, names []string) []byte {
	t.Helper()
	var defs []lock.ToolDef
	for _, n := range names {
		raw, _ := json.Marshal(map[string]string{"name": n})
		d, err := lock.DecodeTool(lock.Version1, raw)
		if err != nil {
			t.Fatal(err)
		}
		defs = append(defs, d)
	}
	srv, err := lock.BuildServer(lock.Version1, defs, lock.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lf := lock.New(lock.Version1, map[string]lock.Server{"s\u202e": srv}, lock.Stamp{By: "agentgate test", At: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}, nil)
	return lock.Format(lf)
}

// TestFormatEscapesEveryHiddenCharacter: the lockfile holds no raw
// character from the one list (outside the newlines of its layout), reads
// back to the same names, and formats to the same bytes.
func TestFormatEscapesEveryHiddenCharacter(t *testing.T) {
	data := lockfileWith(t, hiddenNames)
	for i, r := range string(data) {
		if r != '\n' && safetext.Kind(r) != "" {
			t.Errorf("byte %d: raw U+%04X (%s) in the lockfile", i, r, safetext.Kind(r))
		}
	}
	for _, want := range []string{`"tag\udb40\udc41\udb40\udc42"`, `"bidi\u202e"`, `"sep\u2028"`, `"pua16\udbff\udffd"`, `"s\u202e"`} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("lockfile lacks %s:\n%s", want, data)
		}
	}
	lf, err := lock.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tool := range lf.Servers["s\u202e"].Tools {
		got = append(got, tool.Name)
	}
	for _, n := range hiddenNames {
		if !strings.Contains(strings.Join(got, "\x00"), n) {
			t.Errorf("name %q did not read back (got %q)", n, got)
		}
	}
	if again := lock.Format(lf); !bytes.Equal(again, data) {
		t.Errorf("Format(Parse(b)) != b:\n%s\n%s", again, data)
	}
}

// TestOldLockfileWithRawHiddenCharacters: a lockfile written before the
// list grew, holding tag, private-use and other characters raw, still
// parses to the same names and hashes; Format writes it escaped.
func TestOldLockfileWithRawHiddenCharacters(t *testing.T) {
	data := lockfileWith(t, hiddenNames)
	// Undo the escapes the older writer did not make: raw UTF-8 for every
	// \u escape above U+009F except those it did escape (U+200B-U+200F,
	// U+2028-U+202E, U+2060-U+2064, U+2066-U+2069, U+FEFF).
	var old bytes.Buffer
	s := string(data)
	for len(s) > 0 {
		i := strings.Index(s, `\u`)
		if i < 0 {
			old.WriteString(s)
			break
		}
		old.WriteString(s[:i])
		var r rune
		n := 6
		var str string
		if json.Unmarshal([]byte(`"`+s[i:i+12]+`"`), &str) == nil && utf8.RuneCountInString(str) == 1 {
			r, _ = utf8.DecodeRuneInString(str)
			n = 12
		} else {
			_ = json.Unmarshal([]byte(`"`+s[i:i+6]+`"`), &str)
			r, _ = utf8.DecodeRuneInString(str)
		}
		olderEscaped := r < 0xa0 || (r >= 0x200b && r <= 0x200f) || (r >= 0x2028 && r <= 0x202e) ||
			(r >= 0x2060 && r <= 0x2064) || (r >= 0x2066 && r <= 0x2069) || r == 0xfeff
		if olderEscaped {
			old.WriteString(s[i : i+n])
		} else {
			old.WriteRune(r)
		}
		s = s[i+n:]
	}
	if bytes.Equal(old.Bytes(), data) || !strings.ContainsRune(old.String(), 0xE0041) {
		t.Fatalf("the old form should hold raw tags:\n%s", old.Bytes())
	}
	lf, err := lock.Parse(old.Bytes())
	if err != nil {
		t.Fatalf("an old lockfile no longer parses: %v", err)
	}
	if again := lock.Format(lf); !bytes.Equal(again, data) {
		t.Errorf("Format of the old file:\n%s\nwant\n%s", again, data)
	}
}

// TestFormatV2EscapesEveryHiddenCharacter: a version 2 lockfile holds no
// raw character from the one list either, wherever a server's text lands:
// tool and prompt names, the kept definitions (names, descriptions, member
// names and values, nested), instructions and the server name. It reads
// back to the same definitions and formats to the same bytes.
func TestFormatV2EscapesEveryHiddenCharacter(t *testing.T) {
	var defs []lock.ToolDef
	all := strings.Join(hiddenNames, "")
	for _, n := range hiddenNames {
		raw, _ := json.Marshal(map[string]any{"name": n, "description": "d" + n,
			"inputSchema": map[string]any{"type": "object", "properties": map[string]any{n: map[string]string{"description": all}}}})
		d, err := lock.DecodeTool(lock.Version1, raw)
		if err != nil {
			t.Fatal(err)
		}
		defs = append(defs, d)
	}
	prompt, _ := json.Marshal(map[string]string{"name": "p" + all, "description": all})
	instructions := "i" + all
	srv, err := lock.BuildServer(lock.Version2, defs, lock.BuildOptions{Listing: lock.Listing{Instructions: &instructions, Prompts: [][]byte{prompt}}, Definitions: true})
	if err != nil {
		t.Fatal(err)
	}
	lf := lock.New(lock.Version2, map[string]lock.Server{"s\u202e\U000E0041": srv}, lock.Stamp{By: "agentgate test", At: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}, nil)
	data := lock.Format(lf)
	for i, r := range string(data) {
		if r != '\n' && safetext.Kind(r) != "" {
			t.Errorf("byte %d: raw U+%04X (%s) in the version 2 lockfile", i, r, safetext.Kind(r))
		}
	}
	back, err := lock.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	got := back.Servers["s\u202e\U000E0041"]
	if got.Instructions == nil || *got.Instructions != instructions || len(got.Tools) != len(hiddenNames) || len(got.Prompts) != 1 {
		t.Fatalf("read back: %+v", got)
	}
	for i, tool := range got.Tools {
		if tool.Definition != srv.Tools[i].Definition || tool.Name != srv.Tools[i].Name {
			t.Errorf("tool %d: %q %q, want %q %q", i, tool.Name, tool.Definition, srv.Tools[i].Name, srv.Tools[i].Definition)
		}
	}
	if again := lock.Format(back); !bytes.Equal(again, data) {
		t.Errorf("Format(Parse(b)) != b")
	}
}

// TestSpecListsTheHiddenCharacters: the list of characters the writer
// escapes, as docs/spec/lockfile.md gives it (its U+XXXX and U+XXXX-U+YYYY
// items, plus "the other C0 controls"), is internal/safetext's list, rune
// for rune, so the spec and the writer cannot drift apart.
func TestSpecListsTheHiddenCharacters(t *testing.T) {
	doc, err := os.ReadFile("../docs/spec/lockfile.md")
	if err != nil {
		t.Fatal(err)
	}
	_, list, ok := strings.Cut(string(doc), "every character on agentgate's list of")
	list, _, ok2 := strings.Cut(list, "The list is fixed")
	if !ok || !ok2 || !strings.Contains(list, "the other C0 controls") {
		t.Fatal("docs/spec/lockfile.md no longer has the list of hidden characters where this test looks")
	}
	inDoc := map[rune]bool{}
	for r := rune(0); r < 0x20; r++ {
		inDoc[r] = r != '\t' && r != '\n' // "the other C0 controls"; \t, \n are short escapes, not hidden
	}
	re := regexp.MustCompile(`U\+([0-9A-F]{4,6})(?:-U\+([0-9A-F]{4,6}))?`)
	for _, m := range re.FindAllStringSubmatch(list, -1) {
		lo, _ := strconv.ParseInt(m[1], 16, 32)
		hi := lo
		if m[2] != "" {
			hi, _ = strconv.ParseInt(m[2], 16, 32)
		}
		for r := lo; r <= hi; r++ {
			inDoc[rune(r)] = true
		}
	}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		if got := safetext.Kind(r) != ""; got != inDoc[r] {
			t.Errorf("U+%04X: internal/safetext says hidden=%v, docs/spec/lockfile.md says %v", r, got, inDoc[r])
		}
	}
}
