package builtins

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHashesMatchGNU(t *testing.T) {
	in := "hello\nworld\n"
	var cases []gnuCase
	for _, argv := range [][]string{
		{"sha256sum", "a.txt"}, {"sha256sum"}, {"sha256sum", "a.txt", "csv.txt"}, {"sha256sum", "-", "a.txt"}, {"sha256sum", "nofile"},
		{"md5sum", "a.txt"}, {"sha1sum", "a.txt"}, {"sha512sum", "a.txt"}, {"sha256sum", "--tag", "a.txt"}, {"md5sum", "-b", "a.txt"},
		{"base64", "a.txt"}, {"base64"}, {"base64", "-w", "0", "a.txt"}, {"base64", "-w", "10", "a.txt"}, {"base64", "words.txt"},
	} {
		cases = append(cases, gnuCase{in, argv})
	}
	cases = append(cases, gnuCase{"aGVsbG8K\n", []string{"base64", "-d"}}, gnuCase{"aGVs\nbG8K", []string{"base64", "-d"}},
		gnuCase{"!!!", []string{"base64", "-d"}}, gnuCase{"aGV*sbG8K", []string{"base64", "-di"}}, gnuCase{"", []string{"base64"}})
	// Invalid input: GNU writes what the groups before the fault decode to.
	for _, in := range []string{"not base64!", "YQ==YWJj", "YQ==", "YQ=", "YQ", "Y", "YWJj\r\n", "YW Jj", "YWJjZ", "YQ==\nYQ==\n",
		"YWJ=", "YWJ=YQ==", "YW=jZA==", "=YWJj", "YWJj\n\nZGVm\n", "YW\nJj"} {
		cases = append(cases, gnuCase{in, []string{"base64", "-d"}})
	}
	compareGNU(t, cases)
}

func TestHashCheck(t *testing.T) {
	te := fixture(t)
	sums, _, _ := te.run(t, "", "sha256sum", "a.txt", "csv.txt")
	os.WriteFile(filepath.Join(te.dir, "SUMS"), []byte(sums), 0o644)
	if out, _, rc := te.run(t, "", "sha256sum", "-c", "SUMS"); rc != 0 || out != "a.txt: OK\ncsv.txt: OK\n" {
		t.Errorf("sha256sum -c: %d %q", rc, out)
	}
	os.WriteFile(filepath.Join(te.dir, "a.txt"), []byte("changed"), 0o644)
	out, errOut, rc := te.run(t, "", "sha256sum", "-c", "SUMS")
	if rc != 1 || out != "a.txt: FAILED\ncsv.txt: OK\n" || !strings.Contains(errOut, "1 computed checksum did NOT match") {
		t.Errorf("sha256sum -c after a change: %d %q %q", rc, out, errOut)
	}
	if out, _, rc := te.run(t, "", "sha256sum", "-c", "--status", "SUMS"); rc != 1 || out != "" {
		t.Errorf("--status: %d %q", rc, out)
	}
}

func TestGzipRoundTrip(t *testing.T) {
	te := fixture(t)
	if _, errOut, rc := te.run(t, "", "gzip", "a.txt"); rc != 0 {
		t.Fatalf("gzip: %s", errOut)
	}
	if _, err := os.Stat(filepath.Join(te.dir, "a.txt")); err == nil {
		t.Error("gzip kept the original without -k")
	}
	raw, _ := os.ReadFile(filepath.Join(te.dir, "a.txt.gz"))
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(zr); string(b) != fixtureFiles["a.txt"] {
		t.Errorf("a.txt.gz holds %q", b)
	}
	if out, _, _ := te.run(t, "", "zcat", "a.txt.gz"); out != fixtureFiles["a.txt"] {
		t.Errorf("zcat: %q", out)
	}
	if _, errOut, rc := te.run(t, "", "gunzip", "-k", "a.txt.gz"); rc != 0 {
		t.Fatalf("gunzip -k: %s", errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(te.dir, "a.txt")); string(b) != fixtureFiles["a.txt"] {
		t.Errorf("gunzip wrote %q", b)
	}
	if _, errOut, rc := te.run(t, "", "gzip", "csv.txt", "-k"); rc != 0 || !exists(te.dir, "csv.txt") || !exists(te.dir, "csv.txt.gz") {
		t.Errorf("gzip -k: %d %s", rc, errOut)
	}
	if _, errOut, rc := te.run(t, "", "gzip", "csv.txt"); rc != 1 || !strings.Contains(errOut, "already exists") {
		t.Errorf("gzip over an existing .gz: %d %q", rc, errOut)
	}
	gz, _, _ := te.run(t, "stream me", "gzip", "-c")
	if out, _, rc := te.run(t, gz, "gunzip", "-c"); rc != 0 || out != "stream me" {
		t.Errorf("gzip -c | gunzip -c: %d %q", rc, out)
	}
	if _, errOut, rc := te.run(t, "not gzip", "gunzip", "-c"); rc != 1 || !strings.Contains(errOut, "not in gzip format") {
		t.Errorf("gunzip of garbage: %d %q", rc, errOut)
	}
}

func exists(dir, p string) bool {
	_, err := os.Lstat(filepath.Join(dir, p))
	return err == nil
}

// A small archive that inflates past the cap is cut off with an error.
func TestGunzipCapsOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("inflates 256 MiB")
	}
	var bomb bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&bomb, gzip.BestCompression)
	zero := make([]byte, 1<<20)
	for i := 0; i < maxInflate>>20+1; i++ {
		zw.Write(zero)
	}
	zw.Close()
	te := fixture(t)
	var out counter
	te.Stdin = bytes.NewReader(bomb.Bytes())
	te.Stdout = &out
	f, _ := Lookup("gunzip")
	rc := f(t.Context(), te.Env, []string{"gunzip", "-c"})
	if rc == 0 || !strings.Contains(te.errb.String(), "exceeds the sandbox limit") || out.n > maxInflate {
		t.Errorf("gzip bomb: rc %d, wrote %d, stderr %q", rc, out.n, te.errb.String())
	}
}
