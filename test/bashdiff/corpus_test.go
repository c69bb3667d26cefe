package bashdiff

// The differential corpus: cases written for this project, one file per section of the Bash
// reference manual under testdata/corpus (plus tool-idioms and errors), each run under
// /bin/bash 5.x and under the sandbox engine. bash is the oracle.
//
// The corpus runs by default (MCPBASH_CORPUS=0 skips it); run it alone with
//
//	go test ./test/bashdiff/ -run TestCorpus [-bashdiff.out=result.json] [-v]
//
// -run 'TestCorpus/3.6-redirections' runs one section. Every case runs once under bash and once
// under the engine; bash's outcomes are kept in the user's cache directory (see oracle), and
// -bashdiff.fresh runs bash again for every case. When adding cases, add -bashdiff.twice: every
// case then runs twice under bash, in two directories, and a case whose two runs differ (it
// depends on time, pids or the host's paths) fails. A case whose engine run differs from bash
// fails the suite unless testdata/corpus/known.txt lists it, and a listed case must be a loud
// refusal (see refused) that still differs.
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
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/interp"
	"github.com/mcp-bash/mcp-bash/test/harness"
)

var (
	outFlag   = flag.String("bashdiff.out", "", "write the corpus results as JSON to this file")
	twiceFlag = flag.Bool("bashdiff.twice", false, "run every case a second time under bash, in another directory, and fail a case whose two runs differ (use it when adding cases)")
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

func loadCorpus(t *testing.T) (sections []string, cases map[string][]corpusCase) {
	paths, err := filepath.Glob("testdata/corpus/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	cases = map[string][]corpusCase{}
	for _, p := range paths {
		section := strings.TrimSuffix(filepath.Base(p), ".txt")
		if section == "known" {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := parseSection(section, string(data))
		if err != nil {
			t.Fatal(err)
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
	slices.Sort(sections)
	return sections, cases
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
	// Refused is set when the engine ended the run with a typed refusal or limit (loud).
	Refused bool `json:"refused,omitempty"`
}

func (o outcome) same(p outcome) bool {
	return o.Stdout == p.Stdout && o.Status == p.Status && o.Stderr == p.Stderr
}

// corpusEnv is the whole environment bash gets (as `env -i` would leave it): nothing from the
// host but a search path and the locale the engine's utilities use.
func corpusEnv(work string) []string {
	return []string{"PATH=/usr/bin:/bin", "HOME=" + work, "LANG=C.UTF-8", "LC_ALL=C.UTF-8"}
}

func bashRun(t *testing.T, work, script string) outcome {
	ctx, cancel := context.WithTimeout(t.Context(), caseTimeout)
	defer cancel()
	harness.CleanChildren(t)
	cmd := exec.CommandContext(ctx, "/bin/bash", "--norc", "--noprofile", script)
	cmd.Dir = work
	cmd.Env = corpusEnv(work)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	st := 0
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("bash did not finish within %v", caseTimeout)
	case errors.As(err, &ee):
		st = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	// bash names the script in its messages; the directory differs from run to run.
	text := strings.ReplaceAll(errb.String(), filepath.Dir(script)+"/", "")
	return outcome{Stdout: out.String(), Status: st, Stderr: errb.Len() > 0, StderrText: text}
}

func engineRun(t *testing.T, e *interp.Engine, work, script string) outcome {
	out := runEngine(t, e, work, filepath.Dir(script), script)
	o := outcome{Stdout: string(out.Stdout), Status: out.ExitCode, Stderr: len(out.Stderr) > 0, StderrText: string(out.Stderr)}
	switch {
	case out.TimedOut:
		o.StderrText += "\n[engine timed out]"
		o.Refused = true
	case out.LimitHit != "":
		o.StderrText += "\n[engine limit: " + out.LimitHit + "]"
		o.Refused = true
	case out.Refused != nil:
		o.Refused = true
	}
	return o
}

// refused tells a loud difference from a silent one: the engine failed the case (non-zero
// status, something on stderr) and either its static analysis, what `validate` and
// `run-tool --dry-run` report, marks the script as one that will not run, or the run ended with
// the engine's own refusal, limit or timeout (typed in its outcome: engine.Outcome.Refused,
// Limit, TimedOut).
func refused(script string, got outcome) bool {
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

// Classes of a case's result.
const (
	classIdentical = "identical"
	classLoud      = "different-loud"
	classSilent    = "different-silent"
	classUnstable  = "bash-unstable"
)

type caseResult struct {
	Section string  `json:"section"`
	Name    string  `json:"name"`
	Class   string  `json:"class"`
	Known   string  `json:"known,omitempty"`
	Bash    outcome `json:"bash"`
	Engine  outcome `json:"engine"`
}

type sectionSummary struct {
	Cases     int `json:"cases"`
	Identical int `json:"identical"`
	Loud      int `json:"differentLoud"`
	Silent    int `json:"differentSilent"`
	Unstable  int `json:"bashUnstable,omitempty"`
}

func (s *sectionSummary) add(class string) {
	s.Cases++
	switch class {
	case classIdentical:
		s.Identical++
	case classLoud:
		s.Loud++
	case classSilent:
		s.Silent++
	case classUnstable:
		s.Unstable++
	}
}

func (s sectionSummary) String() string {
	pct := 0.0
	if s.Cases > 0 {
		pct = 100 * float64(s.Identical) / float64(s.Cases)
	}
	str := fmt.Sprintf("%4d cases: %4d identical (%5.1f%%), %4d different-loud, %4d different-silent", s.Cases, s.Identical, pct, s.Loud, s.Silent)
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

func TestCorpus(t *testing.T) {
	if os.Getenv("MCPBASH_CORPUS") == "0" {
		t.Skip("MCPBASH_CORPUS=0: the differential corpus is skipped")
	}
	v, complaint := bashVersion()
	if !strings.HasPrefix(v, "5.") {
		t.Skipf("the corpus's oracle is GNU bash 5.x at /bin/bash; found version %q", v)
	}
	if complaint != "" {
		t.Skipf("bash writes to stderr in the corpus's environment (is the C.UTF-8 locale installed?): %s", complaint)
	}
	// TestCorpusFiles checks the files themselves (size, names, known.txt).
	sections, cases := loadCorpus(t)
	known := harness.ReadKnown(t, "testdata/corpus/known.txt")
	e, err := interp.NewEngine(0)
	if err != nil {
		t.Fatal(err)
	}
	o := newOracle(t)
	sem := make(chan struct{}, corpusParallel)
	var mu sync.Mutex
	var results []caseResult
	summaries := map[string]*sectionSummary{}
	for _, sec := range sections {
		summaries[sec] = &sectionSummary{}
		t.Run(sec, func(t *testing.T) {
			for _, c := range cases[sec] {
				t.Run(c.name, func(t *testing.T) {
					t.Parallel()
					sem <- struct{}{}
					defer func() { <-sem }()
					r := runCase(t, e, o, c, known[sec+"/"+c.name])
					mu.Lock()
					results = append(results, r)
					summaries[sec].add(r.Class)
					mu.Unlock()
				})
			}
		})
	}
	all := sectionSummary{}
	for _, sec := range sections {
		s := summaries[sec]
		if s.Cases == 0 {
			continue // not selected by -run
		}
		all.Cases += s.Cases
		all.Identical += s.Identical
		all.Loud += s.Loud
		all.Silent += s.Silent
		all.Unstable += s.Unstable
		t.Logf("%-32s %s", sec, s)
	}
	t.Logf("%-32s %s", "total", all)
	if *outFlag != "" {
		writeResults(t, *outFlag, v, summaries, all, results)
	}
}

// runCase runs one case and reports any way in which it fails the suite.
func runCase(t *testing.T, e *interp.Engine, o oracle, c corpusCase, knownReason string) caseResult {
	work, script := caseDirs(t, c)
	want, cached := o.get(c)
	if !cached {
		want = bashRun(t, work, script)
		o.put(c, want)
		resetWork(t, work, c.files)
	}
	got := engineRun(t, e, work, script)
	again := want
	if *twiceFlag {
		// In another directory: output that names the host's paths differs.
		work2, script2 := caseDirs(t, c)
		again = bashRun(t, work2, script2)
	}
	r := caseResult{Section: c.section, Name: c.name, Known: knownReason, Bash: want, Engine: got}
	switch {
	case !want.same(again) || want.StderrText != again.StderrText:
		r.Class = classUnstable
		t.Errorf("not deterministic under bash (or depends on the host)\nscript:\n%s\nfirst:  %+v\nsecond: %+v", c.script, want, again)
		return r
	case want.same(got):
		r.Class = classIdentical
	case refused(script, got):
		r.Class = classLoud
	default:
		r.Class = classSilent
	}
	switch {
	case knownReason != "" && r.Class == classIdentical:
		t.Errorf("listed in known.txt (%s) but now identical: remove it from the list", knownReason)
	case knownReason != "" && r.Class == classSilent:
		t.Errorf("listed in known.txt (%s) but the engine does not refuse it: a silent difference\nscript:\n%s\nbash:   %+v\nengine: %+v", knownReason, c.script, want, got)
	case knownReason == "" && r.Class != classIdentical:
		t.Errorf("%s\nscript:\n%s\nbash:   %+v\nengine: %+v", r.Class, c.script, want, got)
	}
	return r
}

func writeResults(t *testing.T, path, bash string, summaries map[string]*sectionSummary, all sectionSummary, results []caseResult) {
	slices.SortFunc(results, func(a, b caseResult) int {
		return strings.Compare(a.Section+"/"+a.Name, b.Section+"/"+b.Name)
	})
	data, err := json.MarshalIndent(map[string]any{"bash": bash, "total": all, "sections": summaries, "cases": results}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}
