package config

// THIS FILE IS A CONTRACT STUB: the package owner replaces the panics and
// keeps the exported names and signatures.

// Load finds and parses every client config under root and agentgate.toml.
// Errors are *Error, naming file:line:column, the field and a hint.
func Load(root string) (*Project, error) { panic("todo") }

// Resolve expands s's variables with lookup (the environment) and the
// project's settings (e.g. VS Code ${input:id} values). An unset variable
// without a default is an *Error naming server, file and variable (exit
// class 3 in the CLI: could not verify).
func (p *Project) Resolve(s Server, lookup func(string) (string, bool)) (Resolved, error) {
	panic("todo")
}

// Redact replaces every secret value in text by "[redacted]".
func (r Resolved) Redact(text string) string { panic("todo") }

// Error is a configuration error with position.
type Error struct {
	File   string
	Line   int
	Column int
	Server string
	Field  string
	Msg    string
	Hint   string
	// Unverifiable marks errors that mean "could not verify" (exit 3),
	// such as a missing variable, rather than invalid input (exit 2).
	Unverifiable bool
}

func (e *Error) Error() string { panic("todo") }
