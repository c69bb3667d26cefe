package builtins

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfinement: every file-touching utility fails on paths outside its root, on ../
// escapes and through a symlink planted inside the root, and leaks nothing.
func TestConfinement(t *testing.T) {
	te := fixture(t)
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret")
	os.WriteFile(secret, []byte("SECRET\n"), 0o644)
	os.WriteFile(filepath.Join(outside, "script.sed"), []byte("p\n"), 0o644)
	os.Symlink(secret, filepath.Join(te.dir, "planted"))
	os.Symlink(outside, filepath.Join(te.dir, "planteddir"))
	escape := strings.Repeat("../", 12) + strings.TrimPrefix(secret, "/")
	readers := [][]string{
		{"cat", "F"}, {"head", "F"}, {"tail", "F"}, {"wc", "F"}, {"grep", "S", "F"}, {"grep", "-r", "S", "F"},
		{"sed", "p", "F"}, {"sed", "-i", "p", "F"}, {"awk", "{print}", "F"}, {"sort", "F"}, {"uniq", "F"}, {"cut", "-c1-", "F"},
		{"tac", "F"}, {"rev", "F"}, {"od", "-c", "F"}, {"nl", "F"}, {"paste", "F"}, {"comm", "F", "a.txt"}, {"base64", "F"}, {"sha256sum", "F"},
		{"md5sum", "F"}, {"sha1sum", "F"}, {"jq", "-R", ".", "F"}, {"diff", "F", "a.txt"}, {"file", "-L", "F"}, {"zcat", "F"},
		{"gzip", "-c", "F"}, {"stat", "-L", "F"}, {"du", "-L", "F"}, {"ls", "-L", "F"}, {"find", "-L", "F"}, {"cp", "F", "stolen"},
		{"realpath", "-e", "F"}, {"readlink", "-ev", "F"}, {"date", "-r", "F"}, {"xargs", "-a", "F", "echo"},
		{"grep", "-f", "F", "a.txt"}, {"awk", "-f", "F"}, {"sed", "-f", "F"}, {"sha256sum", "-c", "F"}, {"touch", "-r", "F", "t"},
		{"awk", `BEGIN{while((getline l < "F")>0) print l}`},
	}
	for _, target := range []string{secret, escape, "planted", filepath.Join("planteddir", "secret")} {
		for _, tmpl := range readers {
			argv := make([]string, len(tmpl))
			for i, a := range tmpl {
				argv[i] = strings.ReplaceAll(a, "F", target)
			}
			out, errOut, rc := te.run(t, "", argv...)
			if strings.Contains(out, "SECRET") || strings.Contains(errOut, "SECRET") {
				t.Errorf("%q leaked the secret: %q %q", argv, out, errOut)
			}
			msg := errOut
			if argv[0] == "file" {
				msg, rc = out, 1 // file reports on stdout and exits 0, as GNU file does
			}
			denied := strings.Contains(msg, "No such file or directory") || strings.Contains(msg, "Permission denied")
			// find -L lists a link it cannot follow as the link itself, as GNU find does.
			followFind := argv[0] == "find" && !strings.HasPrefix(target, "/") && !strings.HasPrefix(target, "..")
			if !strings.Contains(argv[1], "getline") && !followFind && (rc == 0 || !denied) {
				t.Errorf("%q: rc %d, stderr %q; want a failure naming the missing file", argv, rc, errOut)
			}
		}
	}
	for _, argv := range [][]string{
		{"mkdir", filepath.Join(outside, "d")}, {"mkdir", "-p", filepath.Join(outside, "p/q")}, {"touch", filepath.Join(outside, "t")},
		{"rm", secret}, {"rm", "-r", outside}, {"rmdir", outside}, {"mv", "a.txt", outside}, {"cp", "a.txt", outside},
		{"cp", "-r", "sub", outside}, {"ln", "-s", "a.txt", filepath.Join(outside, "l")}, {"ln", "-s", secret, "made"},
		{"ln", "-s", "/etc/passwd", "pw"}, {"tee", filepath.Join(outside, "tee")}, {"sort", "-o", filepath.Join(outside, "o"), "a.txt"},
		{"uniq", "a.txt", filepath.Join(outside, "u")}, {"mktemp", "-p", outside}, {"chmod", "777", secret},
		{"awk", `BEGIN{print "x" > "` + filepath.Join(outside, "awk") + `"}`}, {"gzip", "-k", "planted"},
		{"sed", "-i", "s/S/X/", "planted"}, {"mkdir", "planteddir/new"}, {"touch", "planteddir/new"},
		{"cp", "a.txt", "planteddir/x"}, {"find", outside},
	} {
		if _, _, rc := te.run(t, "", argv...); rc == 0 {
			t.Errorf("%q succeeded outside the root", argv)
		}
	}
	ents, _ := os.ReadDir(outside)
	if len(ents) != 2 {
		t.Errorf("the outside directory changed: %v", ents)
	}
	if b, _ := os.ReadFile(secret); string(b) != "SECRET\n" {
		t.Errorf("the secret changed: %q", b)
	}
	for _, p := range []string{"stolen", "made", "pw", "planted.gz"} {
		if fi, err := os.Lstat(filepath.Join(te.dir, p)); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			t.Errorf("%s is a symlink", p)
		}
		if b, err := os.ReadFile(filepath.Join(te.dir, p)); err == nil && strings.Contains(string(b), "SECRET") {
			t.Errorf("%s holds the secret", p)
		}
	}
	// Listing outside shows nothing; the way to the root shows only the way.
	for _, argv := range [][]string{{"ls", outside}, {"ls", "/etc"}, {"find", "/etc"}, {"du", "-s", "/etc"}, {"stat", "/etc/passwd"}} {
		if out, _, rc := te.run(t, "", argv...); rc == 0 || out != "" {
			t.Errorf("%q: rc %d out %q", argv, rc, out)
		}
	}
}
