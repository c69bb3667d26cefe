package bashdiff

// The differential harness: the one place the repository holds its Bash engines to bash. Cases
// (testdata/corpus, one file per section of the Bash reference manual plus tool idioms, tool
// scripts, errors and utilities) run under /bin/bash 5.x, the oracle, and under two subjects:
//
//   - eval: the bare evaluator (interp/internal/eval) over the host, as evalsh runs it;
//   - engine: the sandbox engine through the real binary (`mcp-bash run-script --json`).
//
// The corpus runs by default (MCPBASH_CORPUS=0 skips it); run it alone with
//
//	go test ./test/bashdiff/ -run TestCorpus [-bashdiff.subject=engine] [-bashdiff.out=result.json] [-v]
//
// -run 'TestCorpus/3.6-redirections' runs one section. Every case runs once under bash and
// once under each subject; bash's outcomes are kept in the user's cache directory (see oracle),
// and -bashdiff.fresh runs bash again for every case. When adding cases, add -bashdiff.twice:
// every case then runs twice under bash, in two directories, and a case whose two runs differ
// (it depends on time, pids or the host's paths) fails. A case whose run under a subject
// differs from bash fails the suite unless testdata/corpus/known.txt lists it (for both
// subjects, or one: "engine:SECTION/NAME"), and a listed case must be a loud refusal (see
// loud) that still differs.
//
// An external corpus (the Oils spec tests' spec/*.test.sh, or files of this format) is
// measured, never judged, with `make bashdiff-external CORPUS=DIR` (TestExternal): it reports
// how many cases are identical, loudly different and silently different per subject.
//
// Case file format (testdata/corpus/<section>.txt): text before the first header is commentary;
// each case starts with a line "### name"; optional fixtures follow as "-- file: relpath --"
// lines, each followed by the file's content, closed by a line "-- script --"; the rest of the
// case is the script. Fixtures are written below the case's working directory.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/interp"
	"github.com/mcp-bash/mcp-bash/test/harness"
)

var (
	outFlag      = flag.String("bashdiff.out", "", "write the corpus results as JSON to this file")
	twiceFlag    = flag.Bool("bashdiff.twice", false, "run every case a second time under bash, in another directory, and fail a case whose two runs differ (use it when adding cases)")
	subjectFlag  = flag.String("bashdiff.subject", "eval,engine", "the subjects to hold to bash, comma-separated: eval (the bare evaluator), engine (the sandbox engine through the binary)")
	externalFlag = flag.String("bashdiff.external", "", "TestExternal: measure the subjects on the cases of this directory (*.test.sh in the Oils spec format, or *.txt of this corpus's)")
)

// corpusParallel bounds the cases run at once: CI has 2 cores.
const corpusParallel = 2

// caseTimeout bounds one run of a case, under bash and under the engine.
const caseTimeout = 10 * time.Second

type fixtureFile struct{ path, content string }

type corpusCase struct {
	section, name string
	files         []fixtureFile
	script        string
}

// parseSection reads one section file.
func parseSection(section, data string) ([]corpusCase, error) {
	var out []corpusCase
	blocks := strings.Split("\n"+data, "\n### ")
	for _, block := range blocks[1:] {
		name, body, _ := strings.Cut(block, "\n")
		name = strings.TrimSpace(name)
		if name == "" || strings.ContainsAny(name, " \t/") {
			return nil, fmt.Errorf("%s: bad case name %q", section, name)
		}
		c := corpusCase{section: section, name: name}
		if strings.HasPrefix(body, "-- file: ") {
			var err error
			if c.files, body, err = parseFixtures(body); err != nil {
				return nil, fmt.Errorf("%s/%s: %w", section, name, err)
			}
		}
		c.script = strings.TrimRight(body, "\n") + "\n"
		if strings.TrimSpace(c.script) == "" {
			return nil, fmt.Errorf("%s/%s: empty script", section, name)
		}
		out = append(out, c)
	}
	return out, nil
}

// parseFixtures splits "-- file: p --" sections off the front of a case body; it returns the
// fixtures and the script after "-- script --".
func parseFixtures(body string) ([]fixtureFile, string, error) {
	var files []fixtureFile
	var cur *fixtureFile
	lines := strings.SplitAfter(body, "\n")
	for i, line := range lines {
		trimmed := strings.TrimRight(line, "\n")
		switch {
		case trimmed == "-- script --":
			return files, strings.Join(lines[i+1:], ""), nil
		case strings.HasPrefix(trimmed, "-- file: ") && strings.HasSuffix(trimmed, " --"):
			p := strings.TrimSuffix(strings.TrimPrefix(trimmed, "-- file: "), " --")
			if p == "" || filepath.IsAbs(p) || strings.Contains(p, "..") {
				return nil, "", fmt.Errorf("bad fixture path %q", p)
			}
			files = append(files, fixtureFile{path: p})
			cur = &files[len(files)-1]
		case cur != nil:
			cur.content += line
		}
	}
	return nil, "", errors.New("fixtures without a -- script -- line")
}

// loadCorpus reads the sections of dir: *.txt files of this corpus's format (known.txt and
// README aside) and *.test.sh files of the Oils spec tests.
func loadCorpus(t *testing.T, dir string) (sections []string, cases map[string][]corpusCase) {
	paths, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	cases = map[string][]corpusCase{}
	for _, p := range paths {
		base := filepath.Base(p)
		var cs []corpusCase
		var section string
		switch {
		case strings.HasSuffix(base, ".test.sh"):
			section = strings.TrimSuffix(base, ".test.sh")
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			cs = parseOils(section, string(data))
		case strings.HasSuffix(base, ".txt") && base != "known.txt":
			section = strings.TrimSuffix(base, ".txt")
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if cs, err = parseSection(section, string(data)); err != nil {
				t.Fatal(err)
			}
		default:
			continue
		}
		seen := map[string]bool{}
		for _, c := range cs {
			if seen[c.name] {
				t.Fatalf("%s: duplicate case name %s", section, c.name)
			}
			seen[c.name] = true
		}
		sections = append(sections, section)
		cases[section] = cs
	}
	if len(sections) == 0 {
		t.Fatalf("no cases in %s", dir)
	}
	slices.Sort(sections)
	return sections, cases
}

// parseOils reads a file of the Oils spec tests: each case starts with "#### title"; lines
// starting with "## " are its expectations (with the lines of a "## STDOUT:" block up to
// "## END"), which the harness ignores: bash is the oracle. Names are the titles with every
// run of characters a case name may not hold made "-", numbered when two collide.
func parseOils(section, data string) []corpusCase {
	var out []corpusCase
	seen := map[string]int{}
	var cur *corpusCase
	inBlock := false
	for _, line := range strings.SplitAfter(data, "\n") {
		trimmed := strings.TrimRight(line, "\n")
		switch {
		case strings.HasPrefix(trimmed, "#### "):
			name := oilsName(strings.TrimPrefix(trimmed, "#### "))
			seen[name]++
			if n := seen[name]; n > 1 {
				name += "-" + strconv.Itoa(n)
			}
			out = append(out, corpusCase{section: section, name: name})
			cur, inBlock = &out[len(out)-1], false
		case cur == nil:
		case inBlock:
			inBlock = trimmed != "## END"
		case strings.HasPrefix(trimmed, "## ") || trimmed == "##":
			// "## STDOUT:", "## OK bash STDERR:", ...: a block up to "## END".
			inBlock = strings.HasSuffix(trimmed, ":") && (strings.Contains(trimmed, "STDOUT") || strings.Contains(trimmed, "STDERR"))
		default:
			cur.script += line
		}
	}
	kept := out[:0]
	for _, c := range out {
		if strings.TrimSpace(c.script) != "" {
			c.script = strings.TrimRight(c.script, "\n") + "\n"
			if strings.Contains(c.script, "argv.py") {
				c.script = argvPy + c.script
			}
			// The spec tests write below $TMP and read below $REPO_ROOT: unset, they name
			// the host's / (bash runs them as the user who runs the harness).
			c.script = oilsDirs + c.script
			kept = append(kept, c)
		}
	}
	return kept
}

// oilsDirs gives a spec test the directories its harness gives it, inside the case's own.
const oilsDirs = `TMP=$PWD/.tmp REPO_ROOT=$PWD; mkdir -p "$TMP"` + "\n"

// argvPy stands in for the Oils spec tests' argv.py (it prints its arguments as a Python list)
// as a function, the same for bash and the subjects: one line before the case's own.
const argvPy = `argv.py() { local a o="[" s=""; for a in "$@"; do a=${a//\\/\\\\}; a=${a//\'/\\\'}; o+="$s'$a'"; s=", "; done; printf '%s]\n' "$o"; }` + "\n"

func oilsName(title string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(title) {
		ok := r > ' ' && r != '/' && r < 0x7f
		switch {
		case ok:
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
	}
	name := strings.TrimRight(b.String(), "-")
	if name == "" {
		name = "case"
	}
	return name
}

// caseDirs makes a case's directory: the script beside a working directory "w" holding the
// fixtures, so that the script is not among the files the case lists or globs.
func caseDirs(t *testing.T, c corpusCase) (work, script string) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	script = filepath.Join(base, "case.sh")
	if err := os.WriteFile(script, []byte(c.script), 0o755); err != nil {
		t.Fatal(err)
	}
	work = filepath.Join(base, "w")
	resetWork(t, work, c.files)
	return work, script
}

// resetWork empties the working directory and writes the fixtures again.
func resetWork(t *testing.T, work string, files []fixtureFile) {
	if err := os.RemoveAll(work); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		p := filepath.Join(work, filepath.FromSlash(f.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f.content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// outcome is what a run produced, as far as the corpus compares it: stdout, exit status and
// whether stderr was empty. StderrText is kept for the result file.
type outcome struct {
	Stdout     string `json:"stdout"`
	Status     int    `json:"status"`
	Stderr     bool   `json:"stderr"`
	StderrText string `json:"stderrText,omitempty"`
	// Refused is set when the subject ended the run with its own refusal, limit or timeout.
	Refused bool `json:"refused,omitempty"`
}

func (o outcome) same(p outcome) bool {
	return o.Stdout == p.Stdout && o.Status == p.Status && o.Stderr == p.Stderr
}

// corpusEnv is the whole environment bash and the subjects get (as `env -i` would leave it):
// nothing from the host but a search path and the locale the engine's utilities use. SH names
// the shell under test for cases that start one (the Oils spec tests do).
func corpusEnv(work string) []string {
	return []string{"PATH=/usr/bin:/bin", "HOME=" + work, "LANG=C.UTF-8", "LC_ALL=C.UTF-8", "SH=bash"}
}

// run runs argv in work with the corpus's environment (and env), empty stdin and the case
// timeout.
func run(t *testing.T, work string, env []string, argv ...string) (stdout, stderr []byte, status int) {
	ctx, cancel := context.WithTimeout(t.Context(), caseTimeout)
	defer cancel()
	harness.CleanChildren(t)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = work
	cmd.Env = append(corpusEnv(work), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("%s did not finish within %v", filepath.Base(argv[0]), caseTimeout)
	case errors.As(err, &ee):
		status = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return out.Bytes(), errb.Bytes(), status
}

func bashRun(t *testing.T, work, script string) outcome {
	out, errb, st := run(t, work, nil, "/bin/bash", "--norc", "--noprofile", script)
	// bash names the script in its messages; the directory differs from run to run.
	text := strings.ReplaceAll(string(errb), filepath.Dir(script)+"/", "")
	return outcome{Stdout: string(out), Status: st, Stderr: len(errb) > 0, StderrText: text}
}

// subject is an engine under test: how it runs a case, and which of its differences from bash
// are loud (a failed run that says the engine cannot do what the script asks).
type subject struct {
	name string
	run  func(t *testing.T, work, script string) outcome
	loud func(script string, got outcome) bool
}

// subjects are the engines the harness holds to bash, by name.
var subjects = []subject{
	{name: "eval", run: evalRun, loud: func(_ string, got outcome) bool { return got.Status != 0 && got.Stderr && got.Refused }},
	{name: "engine", run: engineRun, loud: engineLoud},
}

// evalsh is the evaluator's command-line runner: MCPBASH_TEST_EVALSH when set (to measure
// another build), else a build made once per test process into evalshDir.
var evalsh = sync.OnceValues(func() (string, error) {
	if p := os.Getenv("MCPBASH_TEST_EVALSH"); p != "" {
		return filepath.Abs(p)
	}
	dir, err := os.MkdirTemp("", "mcpbash-evalsh-")
	if err != nil {
		return "", err
	}
	evalshDir.Store(&dir)
	bin := filepath.Join(dir, "evalsh")
	cmd := exec.Command("go", "build", "-o", bin, "./interp/internal/eval/internal/evalsh")
	cmd.Dir = harness.RepoRoot()
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build evalsh: %v\n%s", err, out)
	}
	return bin, nil
})

// evalshDir is the directory of the evalsh build, which TestMain removes.
var evalshDir atomic.Pointer[string]

// TestMain removes the binaries the tests built once they end.
func TestMain(m *testing.M) {
	os.Exit(harness.Main(m, func() {
		if d := evalshDir.Load(); d != nil {
			os.RemoveAll(*d)
		}
	}))
}

// evalRefused is how evalsh says the evaluator refused a script (or could not parse it).
const evalRefused = "evalsh: refused: "

// evalRun runs a case with the bare evaluator over the host, as bash runs it.
func evalRun(t *testing.T, work, script string) outcome {
	bin, err := evalsh()
	if err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(t.TempDir(), "report")
	out, errb, st := run(t, work, []string{"EVALSH_REPORT=" + report}, bin, script)
	said, _ := os.ReadFile(report)
	return outcome{Stdout: string(out), Status: st, Stderr: len(errb) > 0, StderrText: string(errb) + string(said),
		Refused: bytes.Contains(errb, []byte(evalRefused)) || len(said) > 0}
}

// engineReport is `mcp-bash run-script --json`'s answer.
type engineReport struct {
	Stdout, Stderr             string
	StdoutBase64, StderrBase64 []byte
	ExitCode                   int
	Refused                    *struct{ Construct, Fix string }
	LimitHit                   string
	TimedOut                   bool
}

// engineRun runs a case in the sandbox engine through the real binary: the script's directory
// holds the work directory, its only root.
func engineRun(t *testing.T, work, script string) outcome {
	// The sandbox's environment is its own: the shell under test is named as bash's is.
	data, errb, _ := run(t, work, nil, harness.Binary(t), "run-script", "--json", "--env", "SH=bash",
		"--timeout", fmt.Sprint(int(caseTimeout/time.Second)), script)
	var r engineReport
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatalf("run-script: %v: %s %s", err, data, errb)
	}
	if r.StdoutBase64 != nil {
		r.Stdout = string(r.StdoutBase64)
	}
	if r.StderrBase64 != nil {
		r.Stderr = string(r.StderrBase64)
	}
	// The engine notes a stream that is not UTF-8 because a tool result shows it as text; the
	// harness compares the exact bytes (base64), so the note describes no difference here.
	if r.StdoutBase64 != nil || r.StderrBase64 != nil {
		r.Stderr = stripNotUTF8Notes(r.Stderr)
	}
	o := outcome{Stdout: r.Stdout, Status: r.ExitCode, Stderr: r.Stderr != "", StderrText: r.Stderr}
	switch {
	case r.TimedOut:
		o.StderrText += "\n[engine timed out]"
		o.Refused = true
	case r.LimitHit != "":
		o.StderrText += "\n[engine limit: " + r.LimitHit + "]"
		o.Refused = true
	case r.Refused != nil:
		o.Refused = true
	}
	return o
}

// stripNotUTF8Notes removes the engine's closing not-UTF-8 notes (sdk.NotUTF8Notes) from stderr.
func stripNotUTF8Notes(stderr string) string {
	for _, stream := range []string{"stderr", "stdout"} {
		prefix := "mcp-bash: " + stream + " is not UTF-8 ("
		i := strings.LastIndex(stderr, prefix)
		if i >= 0 && (i == 0 || stderr[i-1] == '\n') && strings.IndexByte(stderr[i:], '\n') == len(stderr)-i-1 {
			stderr = stderr[:i]
		}
	}
	return stderr
}

// engineLoud tells a loud difference from a silent one: the engine failed the case (non-zero
// status, something on stderr) and either its static analysis, what `validate` and
// `run-tool --dry-run` report, marks the script as one that will not run, or the run ended with
// the engine's own refusal, limit or timeout (typed in its outcome: engine.Outcome.Refused,
// Limit, TimedOut).
func engineLoud(script string, got outcome) bool {
	if got.Status == 0 || !got.Stderr {
		return false
	}
	if got.Refused {
		return true
	}
	plan, err := interp.AnalyzeFile(script, nil)
	if err != nil {
		return false
	}
	for _, f := range plan.Findings {
		if f.Severity == "error" {
			return true
		}
	}
	return false
}

// selected is the subjects -bashdiff.subject names.
func selected(t *testing.T) []subject {
	var out []subject
	for _, name := range strings.Split(*subjectFlag, ",") {
		i := slices.IndexFunc(subjects, func(s subject) bool { return s.name == strings.TrimSpace(name) })
		if i < 0 {
			t.Fatalf("-bashdiff.subject: no subject %q (eval, engine)", name)
		}
		out = append(out, subjects[i])
	}
	return out
}

// Classes of a case's result.
const (
	classIdentical = "identical"
	classLoud      = "different-loud"
	classSilent    = "different-silent"
	classUnstable  = "bash-unstable"
	// classHost: the case needs what evalsh's host runner cannot give a host program or a new
	// bash process (a shell's stdin read in step, exported functions, inherited descriptors);
	// known.txt lists it for the eval subject with a reason starting hostRunner, and the
	// engine subject, which provides those itself, must be identical.
	classHost = "host-runner"
)

// hostRunner starts the known.txt reason of a classHost case.
const hostRunner = "evalsh host runner:"

type caseResult struct {
	Subject string  `json:"subject"`
	Section string  `json:"section"`
	Name    string  `json:"name"`
	Class   string  `json:"class"`
	Known   string  `json:"known,omitempty"`
	Bash    outcome `json:"bash"`
	Got     outcome `json:"got"`
}

type summary struct {
	Cases     int `json:"cases"`
	Identical int `json:"identical"`
	Loud      int `json:"differentLoud"`
	Silent    int `json:"differentSilent"`
	Host      int `json:"hostRunner,omitempty"`
	Unstable  int `json:"bashUnstable,omitempty"`
}

func (s *summary) add(class string) {
	s.Cases++
	switch class {
	case classIdentical:
		s.Identical++
	case classLoud:
		s.Loud++
	case classSilent:
		s.Silent++
	case classHost:
		s.Host++
	case classUnstable:
		s.Unstable++
	}
}

func (s *summary) merge(o *summary) {
	s.Cases += o.Cases
	s.Identical += o.Identical
	s.Loud += o.Loud
	s.Silent += o.Silent
	s.Host += o.Host
	s.Unstable += o.Unstable
}

func (s summary) String() string {
	pct := func(n int) float64 {
		if s.Cases == 0 {
			return 0
		}
		return 100 * float64(n) / float64(s.Cases)
	}
	str := fmt.Sprintf("%4d cases: %4d identical (%5.1f%%), %4d different-loud (%4.1f%%), %4d different-silent (%4.1f%%)",
		s.Cases, s.Identical, pct(s.Identical), s.Loud, pct(s.Loud), s.Silent, pct(s.Silent))
	if s.Host > 0 {
		str += fmt.Sprintf(", %d beyond evalsh's host runner", s.Host)
	}
	if s.Unstable > 0 {
		str += fmt.Sprintf(", %d unstable under bash", s.Unstable)
	}
	return str
}

// bashVersion is /bin/bash's $BASH_VERSION in the corpus's environment ("" when it cannot be
// run), and what bash said on stderr there (a missing locale, for one, would put a warning on
// the stderr of every case).
func bashVersion() (version, complaint string) {
	cmd := exec.Command("/bin/bash", "--norc", "--noprofile", "-c", `echo "$BASH_VERSION"`)
	cmd.Env = corpusEnv(os.TempDir())
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		return "", errb.String()
	}
	return strings.TrimSpace(string(out)), errb.String()
}

// requireBash skips the test unless /bin/bash is bash 5 and quiet in the corpus's environment.
func requireBash(t *testing.T) string {
	v, complaint := bashVersion()
	if !strings.HasPrefix(v, "5.") {
		t.Skipf("the corpus's oracle is GNU bash 5.x at /bin/bash; found version %q", v)
	}
	if complaint != "" {
		t.Skipf("bash writes to stderr in the corpus's environment (is the C.UTF-8 locale installed?): %s", complaint)
	}
	return v
}

func TestCorpus(t *testing.T) {
	if os.Getenv("MCPBASH_CORPUS") == "0" {
		t.Skip("MCPBASH_CORPUS=0: the differential corpus is skipped")
	}
	v := requireBash(t)
	// TestCorpusFiles checks the files themselves (size, names, known.txt).
	sections, cases := loadCorpus(t, "testdata/corpus")
	known := harness.ReadKnown(t, "testdata/corpus/known.txt")
	runCorpus(t, v, sections, cases, known, true)
}

// TestExternal measures the subjects on a corpus kept outside the repository
// (-bashdiff.external=DIR: the Oils spec tests' *.test.sh, or files of this corpus's format),
// without failing on differences: `make bashdiff-external CORPUS=DIR`.
func TestExternal(t *testing.T) {
	if *externalFlag == "" {
		t.Skip("no -bashdiff.external directory")
	}
	v := requireBash(t)
	sections, cases := loadCorpus(t, *externalFlag)
	runCorpus(t, v, sections, cases, nil, false)
}

// runCorpus runs every case under bash and each selected subject. judge fails the test on a
// difference that known does not list as loud (the repository's corpus); without it the run
// only measures (an external corpus).
func runCorpus(t *testing.T, bashVersion string, sections []string, cases map[string][]corpusCase, known map[string]string, judge bool) {
	subs := selected(t)
	o := newOracle(t)
	sem := make(chan struct{}, corpusParallel)
	var mu sync.Mutex
	var results []caseResult
	summaries := map[string]map[string]*summary{}
	for _, s := range subs {
		summaries[s.name] = map[string]*summary{}
		for _, sec := range sections {
			summaries[s.name][sec] = &summary{}
		}
	}
	for _, sec := range sections {
		t.Run(sec, func(t *testing.T) {
			for _, c := range cases[sec] {
				t.Run(c.name, func(t *testing.T) {
					t.Parallel()
					sem <- struct{}{}
					defer func() { <-sem }()
					rs := runCase(t, subs, o, c, known, judge)
					mu.Lock()
					results = append(results, rs...)
					for _, r := range rs {
						summaries[r.Subject][sec].add(r.Class)
					}
					mu.Unlock()
				})
			}
		})
	}
	totals := map[string]*summary{}
	for _, s := range subs {
		all := &summary{}
		for _, sec := range sections {
			if sum := summaries[s.name][sec]; sum.Cases > 0 {
				all.merge(sum)
				t.Logf("%-6s %-32s %s", s.name, sec, sum)
			}
		}
		totals[s.name] = all
	}
	for _, s := range subs {
		t.Logf("%-6s %-32s %s", s.name, "total", totals[s.name])
	}
	if *outFlag != "" {
		writeResults(t, *outFlag, bashVersion, summaries, totals, results)
	}
}

// knownReason is why known lists a case for a subject ("" when it does not).
func knownReason(known map[string]string, sub string, c corpusCase) string {
	id := c.section + "/" + c.name
	if r, ok := known[sub+":"+id]; ok {
		return r
	}
	return known[id]
}

// runCase runs one case under bash and each subject, and reports any way in which it fails
// the suite.
func runCase(t *testing.T, subs []subject, o oracle, c corpusCase, known map[string]string, judge bool) []caseResult {
	work, script := caseDirs(t, c)
	want, cached := o.get(c)
	if !cached {
		want = bashRun(t, work, script)
		o.put(c, want)
	}
	if *twiceFlag {
		// In another directory: output that names the host's paths differs.
		work2, script2 := caseDirs(t, c)
		if again := bashRun(t, work2, script2); !want.same(again) || want.StderrText != again.StderrText {
			t.Errorf("not deterministic under bash (or depends on the host)\nscript:\n%s\nfirst:  %+v\nsecond: %+v", c.script, want, again)
			var out []caseResult
			for _, s := range subs {
				out = append(out, caseResult{Subject: s.name, Section: c.section, Name: c.name, Class: classUnstable, Bash: want})
			}
			return out
		}
	}
	var out []caseResult
	for _, s := range subs {
		resetWork(t, work, c.files)
		got := s.run(t, work, script)
		reason := knownReason(known, s.name, c)
		r := caseResult{Subject: s.name, Section: c.section, Name: c.name, Known: reason, Bash: want, Got: got}
		switch {
		case want.same(got):
			r.Class = classIdentical
		case s.loud(script, got):
			r.Class = classLoud
		case s.name == "eval" && strings.HasPrefix(reason, hostRunner):
			r.Class = classHost
		default:
			r.Class = classSilent
		}
		out = append(out, r)
		if !judge {
			continue
		}
		if r.Class == classHost {
			// The evaluator's part is held by the engine subject: it must be identical.
			resetWork(t, work, c.files)
			if eng := engineRun(t, work, script); !want.same(eng) {
				t.Errorf("eval: listed as beyond evalsh's host runner, but the engine subject differs too\nscript:\n%s\nbash: %+v\nengine: %+v", c.script, want, eng)
			}
			continue
		}
		switch {
		case reason != "" && r.Class == classIdentical:
			t.Errorf("%s: listed in known.txt (%s) but now identical: remove it from the list", s.name, reason)
		case reason != "" && r.Class == classSilent:
			t.Errorf("%s: listed in known.txt (%s) but it does not refuse it: a silent difference\nscript:\n%s\nbash: %+v\n%s: %+v", s.name, reason, c.script, want, s.name, got)
		case reason == "" && r.Class != classIdentical:
			t.Errorf("%s: %s\nscript:\n%s\nbash: %+v\n%s: %+v", s.name, r.Class, c.script, want, s.name, got)
		}
	}
	return out
}

func writeResults(t *testing.T, path, bash string, summaries map[string]map[string]*summary, totals map[string]*summary, results []caseResult) {
	slices.SortFunc(results, func(a, b caseResult) int {
		return strings.Compare(a.Subject+"/"+a.Section+"/"+a.Name, b.Subject+"/"+b.Section+"/"+b.Name)
	})
	data, err := json.MarshalIndent(map[string]any{"bash": bash, "total": totals, "sections": summaries, "cases": results}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}
