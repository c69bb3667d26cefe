package host

// `mcp-bash vendor`: the original copies its runtime into <project>/.mcp-bash/ so that no system
// install is needed at run time. The runtime here is one static binary, so that is what is
// copied, with a record of its hash.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// VendorDir is the project directory the runtime is vendored into, as in the original.
const VendorDir = ".mcp-bash"

// VendorOptions say what `mcp-bash vendor` does.
type VendorOptions struct {
	// Dir is the project (or any) directory to vendor into; .mcp-bash/ is created in it.
	Dir string
	// Self is the running binary (a physical path) and Version its version.
	Self, Version string
	// Upgrade replaces an existing .mcp-bash/; Verify only checks it; DryRun changes nothing.
	Upgrade, Verify, DryRun bool
	// Log receives one line per file copied (nil: nothing is logged).
	Log io.Writer
}

// VendorRecord is .mcp-bash/vendor.json.
type VendorRecord struct {
	Version    string            `json:"version"`
	VendoredAt string            `json:"vendoredAt"`
	Files      map[string]string `json:"files"` // path under .mcp-bash/ -> sha256
}

// VendorResult is what vendor did (or, with DryRun, would do).
type VendorResult struct {
	Dir    string       `json:"dir"`
	Binary string       `json:"binary"`
	Record VendorRecord `json:"record"`
	Wrote  bool         `json:"wrote"`
}

// ErrVendorMismatch is Verify's answer when the vendored files are not what vendor.json says.
var ErrVendorMismatch = errors.New("the vendored runtime does not match .mcp-bash/vendor.json")

// Vendor copies the running binary into Dir/.mcp-bash/bin/mcp-bash with vendor.json, or
// verifies an existing copy. An existing .mcp-bash/ needs Upgrade to be replaced. Errors the
// caller can fix are *UsageError.
func Vendor(o VendorOptions) (*VendorResult, error) {
	dir := filepath.Join(o.Dir, VendorDir)
	bin := filepath.Join(dir, "bin", "mcp-bash")
	recPath := filepath.Join(dir, "vendor.json")
	res := &VendorResult{Dir: dir, Binary: bin}
	if o.Verify {
		b, err := os.ReadFile(recPath)
		if err != nil {
			return nil, &UsageError{Err: fmt.Errorf("nothing vendored in %s (%v): run mcp-bash vendor", o.Dir, err)}
		}
		if err := json.Unmarshal(b, &res.Record); err != nil {
			return nil, fmt.Errorf("%s: %w", recPath, err)
		}
		for rel, want := range res.Record.Files {
			got, err := fileSHA256(filepath.Join(dir, rel))
			if err != nil || got != want {
				return res, fmt.Errorf("%w: %s (run mcp-bash vendor --upgrade to vendor this binary again)", ErrVendorMismatch, rel)
			}
		}
		return res, nil
	}
	if _, err := os.Lstat(dir); err == nil && !o.Upgrade {
		return nil, &UsageError{Err: fmt.Errorf("%s already exists: pass --upgrade to replace it with this binary", dir)}
	}
	sum, err := fileSHA256(o.Self)
	if err != nil {
		return nil, err
	}
	res.Record = VendorRecord{Version: o.Version, VendoredAt: time.Now().UTC().Format(time.RFC3339), Files: map[string]string{"bin/mcp-bash": sum}}
	if o.Log != nil {
		fmt.Fprintf(o.Log, "mcp-bash vendor: %s -> %s\n", o.Self, bin)
	}
	if o.DryRun {
		return res, nil
	}
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		return nil, err
	}
	if err := copyExecutable(o.Self, bin); err != nil {
		return nil, err
	}
	rec, _ := json.MarshalIndent(res.Record, "", "  ")
	if err := os.WriteFile(recPath, append(rec, '\n'), 0o644); err != nil {
		return nil, err
	}
	res.Wrote = true
	return res, nil
}

// copyExecutable copies src to dst through a temporary file renamed into place, mode 0755.
func copyExecutable(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".mcp-bash-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := io.Copy(tmp, in); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o755); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), dst)
}

func fileSHA256(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
