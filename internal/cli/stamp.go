package cli

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agentgate/agentgate/internal/safetext"
	"github.com/agentgate/agentgate/lock"
)

// stampNow is the generatedBy/generatedAt stamp of a lockfile agentgate
// writes now (stampAt with the environment's clock and variables).
func stampNow(e *env) (lock.Stamp, error) {
	st, err := stampAt(generatedBy(), e.now, e.getenv)
	if err != nil {
		return st, invalid(err, "unset SOURCE_DATE_EPOCH, or set it to an integer such as $(git log -1 --format=%ct)")
	}
	return st, nil
}

// stampAt returns the Stamp for a lockfile written by by (e.g.
// "agentgate@v1.2.3") now. When getenv("SOURCE_DATE_EPOCH") is set and not
// empty it must be a non-negative decimal number of seconds since the Unix
// epoch, at most 253402300799 (9999-12-31T23:59:59Z), and is used instead
// of now(), for reproducible builds. The time is in UTC, truncated to
// milliseconds.
func stampAt(by string, now func() time.Time, getenv func(string) string) (lock.Stamp, error) {
	t := now()
	if v := getenv("SOURCE_DATE_EPOCH"); v != "" {
		secs, err := strconv.ParseInt(v, 10, 64)
		if err != nil || secs < 0 || secs > 253402300799 || strings.HasPrefix(v, "+") {
			return lock.Stamp{}, fmt.Errorf("environment variable SOURCE_DATE_EPOCH=%s: want a decimal number of seconds since 1970-01-01T00:00:00Z", safetext.Quote(v))
		}
		t = time.Unix(secs, 0)
	}
	return lock.Stamp{By: by, At: t.UTC().Truncate(time.Millisecond)}, nil
}
