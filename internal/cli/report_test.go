package cli

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/mcp/config"
)

// TestReportHintsFollowTheirError pins report's layout: every error is
// followed by its own hints before the next error starts, so a reader
// can tell which hint belongs to which error; errors in a row with the
// same hints share one block, after the last of them.
func TestReportHintsFollowTheirError(t *testing.T) {
	ces := config.Errors{
		{File: "a.json", Server: "x", Msg: "bad x", Hint: "fix x"},
		{File: "b.json", Server: "y", Msg: "bad y", Hint: "fix y"},
		{File: "c.json", Server: "z", Msg: "bad z"},
	}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"nil", nil, ""},
		{"silent", silent(ExitDrift), ""},
		{"one error with hints", invalid(errors.New("bad"), "h1", "h2"),
			"agentgate verify: error: bad\nagentgate: hint: h1\nagentgate: hint: h2\n"},
		{"config errors, each with its hint", classify(ExitInvalid, ces),
			"agentgate verify: error: a.json: server \"x\": bad x\nagentgate: hint: fix x\n" +
				"agentgate verify: error: b.json: server \"y\": bad y\nagentgate: hint: fix y\n" +
				"agentgate verify: error: c.json: server \"z\": bad z\n"},
		{"config errors wrapped", classify(ExitInvalid, fmt.Errorf("load: %w", ces)),
			"agentgate verify: error: a.json: server \"x\": bad x\nagentgate: hint: fix x\n" +
				"agentgate verify: error: b.json: server \"y\": bad y\nagentgate: hint: fix y\n" +
				"agentgate verify: error: c.json: server \"z\": bad z\n"},
		{"groups, each with its hints", drift(errorList{
			{lines: []string{"head 1:", "item a", "item b"}, hints: []string{"hint 1"}},
			{lines: []string{"head 2:", "item c"}, hints: []string{"hint 2"}},
		}), "agentgate verify: error: head 1:\nagentgate verify: error: item a\nagentgate verify: error: item b\nagentgate: hint: hint 1\n" +
			"agentgate verify: error: head 2:\nagentgate verify: error: item c\nagentgate: hint: hint 2\n"},
		{"same hints in a row print once, after the last", drift(errorList{
			{lines: []string{"e1"}, hints: []string{"same"}},
			{lines: []string{"e2"}, hints: []string{"same"}},
			{lines: []string{"e3"}, hints: []string{"other"}},
		}), "agentgate verify: error: e1\nagentgate verify: error: e2\nagentgate: hint: same\n" +
			"agentgate verify: error: e3\nagentgate: hint: other\n"},
		{"hints about the whole list come last", &ExitError{Code: ExitDrift, Err: errorList{
			{lines: []string{"e1"}, hints: []string{"h1"}},
		}, Hints: []string{"all"}}, "agentgate verify: error: e1\nagentgate: hint: h1\nagentgate: hint: all\n"},
		{"an unclassified error keeps its typed hints", &config.Error{File: "f", Msg: "m", Hint: "h"},
			"agentgate verify: error: f: m\nagentgate: hint: h\n"},
		{"unclassified joined errors, each with its hints", errors.Join(
			&config.Error{File: "a", Msg: "m1", Hint: "h1"}, &config.Error{File: "b", Msg: "m2", Hint: "h2"}),
			"agentgate verify: error: a: m1\nagentgate: hint: h1\nagentgate verify: error: b: m2\nagentgate: hint: h2\n"},
		{"joined errors, each with its hints", invalid(errors.Join(
			&config.Error{File: "a", Msg: "m1", Hint: "h1"}, errors.New("plain"), &config.Error{File: "b", Msg: "m2", Hint: "h2"})),
			"agentgate verify: error: a: m1\nagentgate: hint: h1\nagentgate verify: error: plain\n" +
				"agentgate verify: error: b: m2\nagentgate: hint: h2\n"},
		{"message lines are made visible", invalid(errors.New("two\nlines"), "a\x1b[31mred"),
			"agentgate verify: error: two\\nlines\nagentgate: hint: a\\x1b[31mred\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			report(&b, "verify", tt.err)
			if b.String() != tt.want {
				t.Errorf("report:\n%s\nwant:\n%s", b.String(), tt.want)
			}
		})
	}
}
