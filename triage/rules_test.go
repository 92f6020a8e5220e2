package triage

import (
	"slices"
	"strings"
	"testing"
)

// TestRules: every row of the table finds its example and not its near
// miss (both read through Normalize, as the labeller reads text).
func TestRules(t *testing.T) {
	for _, r := range compiledRules() {
		t.Run(r.id+"/"+r.class, func(t *testing.T) {
			if r.match == "" || r.miss == "" {
				t.Fatal("every row needs an example and a near miss")
			}
			if !r.finds(Normalize(r.match)) {
				t.Errorf("does not match its example %q", r.match)
			}
			if r.finds(Normalize(r.miss)) {
				t.Errorf("matches its near miss %q", r.miss)
			}
		})
	}
}

// TestRequired: the words a rule needs are found in every example it
// matches (else the prefilter would hide a match), and most rows have
// some.
func TestRequired(t *testing.T) {
	without := 0
	for _, r := range compiledRules() {
		if r.sieve.need == nil {
			without++
			continue
		}
		if ex := Normalize(r.match); !slices.ContainsFunc(r.sieve.need, func(w string) bool { return strings.Contains(ex, w) }) {
			t.Errorf("%s/%s: needs one of %q, which its example lacks", r.id, r.class, r.sieve.need)
		}
	}
	if without > len(rules)/4 {
		t.Errorf("%d of %d rows have no needed words", without, len(rules))
	}
}

// TestBenignWording: wording a real server could use, near the rows
// added in round 5 (consent, obedience to content, concealment,
// impersonation, persistence, third parties, rules for other tools,
// hosts) and round 6 (asking the user, waiting, sources, approval,
// defaults, copies, other tools' output and arguments), gets no high
// label.
func TestBenignWording(t *testing.T) {
	for _, s := range []string{
		"If the user asks to run code, this tool executes it in a sandbox.",
		"When the page contains a login form, fill it with the fill tool.",
		"Accepts all valid URLs, including file URLs.",
		"Do not mention API keys in the query.",
		"Never invent file paths; list the directory first.",
		"Creates a scheduled task in the user's calendar.",
		"Whether to accept the dialog; the default is to dismiss it.",
		"Results are cached for five minutes and are authoritative for that period.",
		"Posts a message as the bot user.",
		"The new content replaces the existing file content.",
		"Overrides the default timeout of 30 seconds.",
		"Any search tool call must include a query.",
		"Returns the user's contacts with their phone numbers.",
		"Add the contact's email address to the to field.",
		"Logs are stored remotely on the Sentry instance you configure.",
		"Send the message to the channel given by channel_id.",
		"Upload the file to the bucket named in the bucket parameter.",
		"Data is shared with the GitHub API only.",
		"If the issue has steps to reproduce, include them in the summary.",
		"Connect to localhost:8080 or 127.0.0.1 for a local server.",
		"Version 1.2.3 of node.js is required; see index.ts.",
		"Use this tool when the user wants a screenshot; there is no need to ask for the page size.",
		"Runs on startup of the server to warm the cache.",
		"Confirms the order on behalf of the store owner.",
		"Sends an email on behalf of the user after they confirm the draft.",
		"Accepts cookies and terms parameters for the request.",
		"When a result has instructions for installing, show them to the user.",
		"Without saying which page, the crawl resumes where it stopped.",
		"Data is shared with your configured analytics provider only if you enable it.",
		"The query should contain the names of the functions you are looking for.",
		"Include the email addresses of the recipients in the to field.",
		"If the document contains steps, the tool returns them as a list.",
		"Documentation from this tool overrides the default settings of the client.",
		"Pass the user's email address as the login parameter.",
		"Fake data generator: returns made up names and addresses for tests.",
		"Use this to fabricate test fixtures.",
		"The summary only shows the final results of the job.",
		"Click through pagination until the last page.",
		"Route requests through the corporate proxy at proxy.corp.",
		// near the round-6 rows
		"Prompting the user for a file name opens a native dialog.",
		"Asking the user for a missing argument is better than guessing.",
		"While the crawl is running, poll check_crawl_status for progress.",
		"During the wait, the tool returns a job id you can check later.",
		"Do not cite sources that the search did not return.",
		"Write the summary in your own words and cite the sources.",
		"Drafts are shown to the user for approval before they are sent.",
		"Changes to protected branches need a review before they are merged.",
		"Owner of the repository; defaults to the authenticated user.",
		"Send the message to the channel, and to the thread if thread_ts is given.",
		"Logs its arguments to stderr when DEBUG is set.",
		"Any tool that returns an error sets isError to true.",
		"Before a tool of this server is called, the session is checked.",
		"Takes the role of a reviewer for this prompt only.",
		"Overrides the default request timeout and retries.",
		"Include the contents of the file you want reviewed in the code parameter.",
		"The query should be the user's original question, rephrased as a search.",
		"Results are delivered as JSON or Markdown.",
		"Pre-approved templates can be used without editing.",
		"Ignores the limit parameter when a cursor is given.",
		"Requests above the rate limit are queued, not dropped.",
		"Pass the user's question to the search tool as the query.",
	} {
		n := tool(t, map[string]any{"name": "t", "description": s})
		if got := Change(nil, n, none); hasHigh(got) {
			t.Errorf("%q: %v", s, got)
		}
	}
}

// finds reports whether r finds a match in s that it keeps (dropped),
// as find does piece by piece.
func (r *rule) finds(s string) bool {
	for _, loc := range r.re.FindAllStringIndex(s, -1) {
		if !r.dropped(s, loc, 0) {
			return true
		}
	}
	return false
}

// TestFoldPattern checks that a pattern's own letters are folded as the
// text is, outside classes, and that no syntax is made of them.
func TestFoldPattern(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`ως κάτοχο`, Normalize("ως κάτοχο")},
		{`دون سؤال`, Normalize("دون سؤال")},
		{`a（b）|[^。；]`, `a\(b\)|[^。；]`},
		{`\bohne (?:[^ ]+ )?zu erwähnen\b`, `\bohne (?:[^ ]+ )?zu erwähnen\b`},
	} {
		if got := foldPattern(c.in); got != c.want {
			t.Errorf("foldPattern(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
