package native

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLimitsPrefix runs the bash prefix that sets a native tool's rlimits when no confinement
// wrapper does: the tool sees them, cannot raise them, and a limit already lower stays.
func TestLimitsPrefix(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	for _, tc := range []struct {
		name   string
		pre    string // run before the prefix (a lower limit inherited from the server)
		limits Limits
		probe  string
		want   string
	}{
		{"all four", "", Limits{AddressSpaceKiB: 4 << 20, CPUSeconds: 7, OpenFiles: 99, FileSizeKiB: 2048},
			`echo "$(ulimit -v) $(ulimit -H -v) $(ulimit -t) $(ulimit -H -t) $(ulimit -n) $(ulimit -f)"; ulimit -n 200 2>/dev/null || echo cannot-raise`,
			"4194304 4194304 7 8 99 2048\ncannot-raise"},
		{"a lower limit stays", "ulimit -n 50", Limits{OpenFiles: 500}, `ulimit -n`, "50"},
		{"none", "", Limits{}, "echo plain", "plain"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			argv := []string{bash, "-c", tc.probe}
			if p := tc.limits.prefix(); p != "" {
				argv = append([]string{bash, "-c", p, "mcp-bash-limits"}, argv...)
			}
			if tc.pre != "" {
				argv = append([]string{bash, "-c", tc.pre + `; exec "$@"`, "pre"}, argv...)
			}
			out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
			if err != nil || strings.TrimSpace(string(out)) != tc.want {
				t.Fatalf("%q: %v\n%s", argv, err, out)
			}
		})
	}
	if got := (Limits{AddressSpaceKiB: 1, CPUSeconds: 2}).Rlimits(); len(got) != 2 || got[0].Cur != 1024 || got[1].Max != 3 {
		t.Errorf("Rlimits: %+v", got)
	}
}
