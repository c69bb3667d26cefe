//go:build !linux

package confine

import (
	"strings"
	"testing"
)

// TestLayerRefusedOffLinux: review mode's layer for native tools needs Linux's overlays; here
// every entry point refuses, saying so, and the probe the server runs first fails the same way.
func TestLayerRefusedOffLinux(t *testing.T) {
	for name, err := range map[string]error{
		"probe": LayerProbe("mcp-bash", t.TempDir()),
		"exec": func() error {
			st, err := LayerExec([]string{"spec", "--", "true"})
			if st != 126 {
				t.Errorf("LayerExec status %d, want 126", st)
			}
			return err
		}(),
	} {
		if err == nil || !strings.Contains(err.Error(), "only on Linux") {
			t.Errorf("%s: %v, want a refusal naming Linux", name, err)
		}
	}
	if a := LayerAttr(1000, 1000); a != nil {
		t.Errorf("LayerAttr = %+v, want nil off Linux", a)
	}
}
