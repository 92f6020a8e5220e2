package pep440

import (
	"strings"

	"github.com/agentgate/agentgate/internal/lazyre"
)

// nameRunRE is PEP 503's run of separators.
var nameRunRE = lazyre.New(`[-_.]+`)

// NormalizeName is a Python project name's normalised form, as PEP 503
// ("Simple Repository API", Normalized Names) and the Name normalization
// specification define it: every run of "-", "_" and "." becomes one "-",
// and the result is lower case (Python's
// re.sub(r"[-_.]+", "-", name).lower()). Names that normalise alike name
// one project: the index URL of a project is its normalised name, and
// agentgate pins and compares PyPI names in this form.
func NormalizeName(name string) string {
	return strings.ToLower(nameRunRE().ReplaceAllString(name, "-"))
}
