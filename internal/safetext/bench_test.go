package safetext

import (
	"strings"
	"testing"
)

// benchText is a tool description as servers write them: mostly ASCII,
// some accented and CJK text and an emoji, and one hidden character of a
// few kinds, so that Kind's table is searched as well as its fast path.
var benchText = strings.Repeat("Reads a file from the workspace and returns its contents. ", 20) +
	"Café, naïve, 日本語のテキスト, 😀. " + "zero\u200bwidth, bidi\u202e, tag\U000E0041, soft\u00adhyphen, private\uE000. "

// BenchmarkKind classifies every rune of benchText.
func BenchmarkKind(b *testing.B) {
	b.SetBytes(int64(len(benchText)))
	for b.Loop() {
		n := 0
		for _, r := range benchText {
			if Kind(r) != "" {
				n++
			}
		}
		if n != 5 {
			b.Fatalf("%d hidden characters, want 5", n)
		}
	}
}

// BenchmarkKindNonASCII classifies non-ASCII runes only (the table's part).
func BenchmarkKindNonASCII(b *testing.B) {
	var rs []rune
	for _, r := range benchText {
		if r >= 0x80 {
			rs = append(rs, r)
		}
	}
	for b.Loop() {
		for _, r := range rs {
			_ = Kind(r)
		}
	}
}

// BenchmarkVisible escapes benchText, and a plain ASCII text (the fast path).
func BenchmarkVisible(b *testing.B) {
	plain := strings.Repeat("Reads a file from the workspace and returns its contents. ", 20)
	for _, c := range []struct{ name, s string }{{"hidden", benchText}, {"plain", plain}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.s)))
			for b.Loop() {
				_ = Visible(c.s)
			}
		})
	}
}
