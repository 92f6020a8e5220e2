package proc

// Fake and HostRules, for platform_test.go (package proc_test, which
// captures through mcp/capture): the fake server's definition, and the
// command rules to run another OS's against it.
var (
	Fake      = fake
	HostRules = &hostRules
)
