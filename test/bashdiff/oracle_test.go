package bashdiff

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

var freshFlag = flag.Bool("bashdiff.fresh", false, "run every corpus case under bash even when its result is in the oracle cache")

// oracle remembers what bash did with a case. Starting a process costs about 20ms of CPU on the
// 2-core CI machines, so the corpus spends most of its time starting bash; a case's outcome is a
// function of the bash binary, the environment the runner gives it and the case's own text, so
// it is kept in the user's cache directory under a key made of all three, and a case runs under
// bash again whenever any of them changes. -bashdiff.fresh and -bashdiff.twice bypass it.
type oracle struct {
	// dir is where outcomes are kept; "" when nothing is cached.
	dir string
}

// oracleVersion changes when the runner changes how it runs bash (arguments, environment,
// directory layout), which the key cannot see.
// v2: outcomes whose output is not UTF-8 are no longer kept (JSON turned their bytes into
// U+FFFD, so a subject printing bash's exact bytes differed from the cached answer).
const oracleVersion = "corpus-oracle-v2"

func newOracle(t *testing.T) oracle {
	if *freshFlag || *twiceFlag {
		return oracle{}
	}
	base, err := os.UserCacheDir()
	if err != nil {
		t.Logf("no oracle cache: %v", err)
		return oracle{}
	}
	f, err := os.Open("/bin/bash")
	if err != nil {
		return oracle{}
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return oracle{}
	}
	dir := filepath.Join(base, "mcp-bash", "bashdiff", hex.EncodeToString(h.Sum(nil))[:24])
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Logf("no oracle cache: %v", err)
		return oracle{}
	}
	return oracle{dir: dir}
}

// key names a case's outcome: the runner's version and environment, the fixtures and the script.
func (o oracle) key(c corpusCase) string {
	h := sha256.New()
	io.WriteString(h, oracleVersion+"\x00"+strings.Join(corpusEnv("$WORK"), "\x00")+"\x00")
	for _, f := range c.files {
		io.WriteString(h, "file\x00"+f.path+"\x00"+f.content+"\x00")
	}
	io.WriteString(h, "script\x00"+c.script)
	return hex.EncodeToString(h.Sum(nil))
}

func (o oracle) get(c corpusCase) (outcome, bool) {
	if o.dir == "" {
		return outcome{}, false
	}
	data, err := os.ReadFile(filepath.Join(o.dir, o.key(c)+".json"))
	if err != nil {
		return outcome{}, false
	}
	var out outcome
	if json.Unmarshal(data, &out) != nil {
		return outcome{}, false
	}
	return out, true
}

// put records an outcome; failing to is not an error (the next run asks bash again).
func (o oracle) put(c corpusCase, out outcome) {
	// A JSON string holds only UTF-8: such an outcome is asked of bash every run instead.
	if o.dir == "" || !utf8.ValidString(out.Stdout) || !utf8.ValidString(out.StderrText) {
		return
	}
	data, err := json.Marshal(out)
	if err != nil {
		return
	}
	tmp, err := os.CreateTemp(o.dir, "tmp-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), filepath.Join(o.dir, o.key(c)+".json")) != nil {
		os.Remove(tmp.Name())
	}
}
