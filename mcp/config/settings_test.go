package config

import (
	"strings"
	"testing"
)

// TestAllowUnpinnedPackageSetting: agentgate.toml's allow-unpinned-package,
// top level and per server, is read as a boolean; another type is an
// error naming the key and its line.
func TestAllowUnpinnedPackageSetting(t *testing.T) {
	st, err := ParseSettings(SettingsFile, []byte("allow-unpinned-package = true\n[servers.a]\nallow-unpinned-package = true\n[servers.b]\ntimeout = \"1s\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !st.AllowUnpinnedPackage || !st.Servers["a"].AllowUnpinnedPackage || st.Servers["b"].AllowUnpinnedPackage {
		t.Errorf("read %+v", st)
	}
	if st, err := ParseSettings(SettingsFile, []byte("timeout = \"1s\"\n")); err != nil || st.AllowUnpinnedPackage {
		t.Errorf("default: %+v, %v", st, err)
	}
	for _, bad := range []string{"allow-unpinned-package = \"yes\"\n", "[servers.a]\nallow-unpinned-package = 1\n"} {
		_, err := ParseSettings(SettingsFile, []byte(bad))
		if err == nil || !strings.Contains(err.Error(), "allow-unpinned-package") || !strings.Contains(err.Error(), SettingsFile+":") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
