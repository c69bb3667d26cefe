// Package native runs a tool as a real bash process with the original framework's file and
// environment contract (COMPAT.md §4): the SDK is sourced from a per-process read-only copy,
// progress and logs stream live from side-channel files, and the whole process group is ended
// on cancellation, timeout and exit.
package native

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
	"github.com/mcp-bash/mcp-bash/sdk"
)

// Engine is the native engine of the engine contract: it runs a tool as a real bash process
// with the original's file and environment contract, confined (when the Job has a Confiner) to
// the call's roots. It owns the SDK directory (created once, read-only).
type Engine struct {
	// Self is the mcp-bash binary (for `mcp-bash jq` and the confinement wrapper); Bash is the
	// shell (default "bash"; on Windows Git-Bash's bash.exe, found by the server).
	Self, Bash string
	// BashErr, when set, is why no bash was found: every run fails with it.
	BashErr error
	// Base is where per-call scratch directories go ("" = sandbox.ScratchBase("")).
	Base string
	// Project is the project root: every native tool starts there, as in the original, and it
	// is HOME when the server has none.
	Project string
	// Env says what of the server's environment a tool starts with.
	Env EnvPolicy
	// Spill is MCPBASH_ENV_PAYLOAD_THRESHOLD: JSON payloads longer than this go through files.
	Spill int
	// SDKDir overrides the embedded SDK (an inherited MCPBASH_HOME's sdk/, as the original's
	// test suites use).
	SDKDir string
	// Limits are the rlimits of every tool's processes; CPUSeconds < 0 means twice the call's
	// timeout plus 2 s.
	Limits Limits
	// BeforeConfine, when set, is called before a tool's command line is confined (the server
	// says once when Landlock is unavailable).
	BeforeConfine func()
	// Hide are directories a tool in review mode must not even see (the change store): covered
	// by an empty read-only file system in its namespace.
	Hide []string

	once   sync.Once
	sdkDir string
	sdkErr error
}

// EnvPolicy is MCPBASH_TOOL_ENV_MODE and its allowlist over the server's environment.
type EnvPolicy struct {
	// Environ lists the server's environment (nil: empty).
	Environ func() []string
	// Mode is "minimal" (MCP_*/MCPBASH_* without secrets, PATH, HOME, LANG), "allowlist"
	// (minimal plus Allow) or "inherit" (everything).
	Mode  string
	Allow []string
}

// job is one native run, as Run prepares it from the contract's Job.
type job struct {
	Call        *engine.Call
	Script, Dir string
	// Args are the script's positional parameters (a provider's URI).
	Args []string
	// Env is the environment the tool starts with (contract variables included; run adds the
	// side-channel paths, TMPDIR, MCP_SDK and the JSON tool, and spills large payloads).
	Env       []string
	Timeout   time.Duration
	MaxStdout int64
	MaxStderr int64
	// Roots bound what the result may embed (MCP_TOOL_RESOURCES_FILE).
	Roots     []sandbox.Root
	Cancelled func() bool
	Spill     int
	SDKDir    string
	// Wrap, when set, rewrites the command line (OS confinement); an error refuses the run.
	// limited reports that the wrapper also sets Limits (else a bash prefix does).
	Wrap func(argv []string, scratch string) (out []string, limited bool, err error)
	// Limits are resource limits of the tool's processes (zero fields: none).
	Limits Limits
	// Confinement says how the tool runs (Confiner.Describe), for the access record.
	Confinement string
	// Attr, when set, starts the tool's first process (review mode's namespaces; else its own
	// process group); Review, when set, reads what the call left in its review layer.
	Attr   *syscall.SysProcAttr
	Review func(out *engine.Outcome)
}

// Limits are the rlimits a native tool runs under, set with bash's ulimit (hard and soft, so
// the tool cannot raise them) right before the tool starts, and inherited by its children.
type Limits struct {
	AddressSpaceKiB int64 // ulimit -v
	CPUSeconds      int64 // ulimit -t
	OpenFiles       int64 // ulimit -n
	FileSizeKiB     int64 // ulimit -f (in KiB: bash's unit for -f is 1024 bytes)
}

// Rlimits are the limits as setrlimit(2) values (CPU keeps one second between soft and hard,
// as the bash prefix does).
func (l Limits) Rlimits() []sandbox.Rlimit {
	var out []sandbox.Rlimit
	add := func(res int, soft, hard int64) {
		if soft > 0 {
			out = append(out, sandbox.Rlimit{Resource: res, Cur: uint64(soft), Max: uint64(hard)})
		}
	}
	add(sandbox.LimitAddressSpace, l.AddressSpaceKiB<<10, l.AddressSpaceKiB<<10)
	add(sandbox.LimitCPU, l.CPUSeconds, l.CPUSeconds+1)
	add(sandbox.LimitOpenFiles, l.OpenFiles, l.OpenFiles)
	add(sandbox.LimitFileSize, l.FileSizeKiB<<10, l.FileSizeKiB<<10)
	return out
}

// prefix is the bash that sets the limits and then becomes argv ("" when there are none).
func (l Limits) prefix() string {
	var b strings.Builder
	for _, x := range []struct {
		flag string
		v    int64
	}{{"-v", l.AddressSpaceKiB}, {"-t", l.CPUSeconds}, {"-n", l.OpenFiles}, {"-f", l.FileSizeKiB}} {
		if x.v <= 0 {
			continue
		}
		// Only ever lower a limit (raising a hard limit fails); CPU keeps one second between
		// soft (SIGXCPU, named in the result) and hard (SIGKILL).
		hard := x.v
		if x.flag == "-t" {
			hard++
		}
		fmt.Fprintf(&b, `l=$(ulimit -H %[1]s); if [ "$l" = unlimited ] || [ "$l" -gt %[2]d ]; then ulimit -S %[1]s %[3]d && ulimit -H %[1]s %[2]d || exit 126; fi; `, x.flag, hard, x.v)
	}
	if b.Len() == 0 {
		return ""
	}
	return b.String() + `exec "$@"`
}

// lookup returns the last value of name in env.
func lookup(env []string, name string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], name+"="); ok {
			return v, true
		}
	}
	return "", false
}

// grace is the time between TERM and KILL, as the original's watchdog.
const grace = time.Second

func (e *Engine) sdk() (string, error) {
	e.once.Do(func() {
		dir, err := os.MkdirTemp(sandbox.ScratchBase(e.Base), "mcpbash-sdk-")
		if err != nil {
			e.sdkErr = err
			return
		}
		if err := os.WriteFile(filepath.Join(dir, "tool-sdk.sh"), []byte(sdk.BashSDK), 0o444); err != nil {
			e.sdkErr = err
			return
		}
		if err := os.WriteFile(filepath.Join(dir, "ui-templates.jq"), []byte(sdk.UITemplatesJQ), 0o444); err != nil {
			e.sdkErr = err
			return
		}
		// jq is the binary itself under that name (it dispatches on argv[0]); where links need a
		// privilege (Windows), a script that runs `mcp-bash jq`.
		if err := jqCommand(e.Self, filepath.Join(dir, "jq")); err != nil {
			e.sdkErr = err
			return
		}
		// Read-only: a tool cannot change the SDK other tools source.
		e.sdkErr = os.Chmod(dir, 0o555)
		e.sdkDir = dir
	})
	return e.sdkDir, e.sdkErr
}

// Close removes the SDK directory.
func (e *Engine) Close() {
	if e.sdkDir != "" {
		os.Chmod(e.sdkDir, 0o755)
		os.RemoveAll(e.sdkDir)
	}
}

// Run runs a native tool (the Job's Script) and reports its outcome.
func (e *Engine) Run(ctx context.Context, j engine.Job) *engine.Outcome {
	lim := j.Policy.Limits.WithDefaults()
	limits := e.Limits
	if limits.CPUSeconds < 0 {
		limits.CPUSeconds = int64(2*lim.Timeout/time.Second) + 2
	}
	run := job{
		Call: j.Call, Script: j.Script, Args: j.Args, Dir: e.Project, Env: e.environment(j),
		Timeout: lim.Timeout, MaxStdout: lim.MaxStdoutBytes, MaxStderr: lim.MaxStderrBytes,
		Roots: j.Policy.Roots, Cancelled: j.Cancelled, Spill: e.Spill, SDKDir: e.SDKDir, Limits: limits,
	}
	rules := j.Policy.ConfineRules()
	rules.Net = j.Network
	// The tool's own directory, the SDK directory, the binary its jq symlink points to, and
	// the host facts a native tool is for (docs/SANDBOX.md, Native mode).
	rules.RO = append(rules.RO, j.Call.ToolDir, e.Self)
	rules.RO = append(rules.RO, HostInfo...)
	if run.SDKDir != "" {
		// An original framework checkout's SDK sources its siblings (../lib/*.sh,
		// ../providers/https.sh): the checkout is readable, never writable.
		rules.RO = append(rules.RO, filepath.Dir(run.SDKDir))
	}
	run.Confinement = j.Confiner.Describe()
	confined := false
	run.Wrap = func(argv []string, scratch string) ([]string, bool, error) {
		r := rules
		r.RW = append(append([]string(nil), r.RW...), scratch)
		if dir, err := e.sdk(); err == nil {
			r.RO = append(append([]string(nil), r.RO...), dir)
		}
		// The confinement wrapper also sets the rlimits (no extra bash start per call).
		r.Limits = run.Limits.Rlimits()
		if e.BeforeConfine != nil {
			e.BeforeConfine()
		}
		out, err := j.Confiner.Wrap(r, argv)
		confined = err == nil && len(out) != len(argv)
		return out, confined, err
	}
	if j.Policy.Layer != "" {
		if err := e.review(&run, j); err != nil {
			return &engine.Outcome{ExitCode: 126, Stderr: []byte("mcp-bash: review mode: " + err.Error() + "\n")}
		}
	}
	out := e.run(ctx, run)
	// How it ran (run's exec entry), then the grants and what the tool was denied.
	out.Access = accessRecord(out.Access, rules, confined, out.Stderr)
	return out
}

// review runs the job over overlays of its read-write roots whose upper layers are in the
// call's layer directory (sandbox.WrapLayer): the tool's writes land there, and what it changed
// is read back into the layer's manifest when it has ended.
func (e *Engine) review(run *job, j engine.Job) error {
	layer := j.Policy.Layer
	spec := sandbox.LayerSpec{Dir: run.Dir, UID: os.Geteuid(), GID: os.Getegid(), Hide: e.Hide}
	var uppers []sandbox.UpperRoot
	for i, r := range j.Policy.Roots {
		if r.Mode != sandbox.ReadWrite || r.Protected {
			continue
		}
		u, w := fmt.Sprintf("u%d", i), fmt.Sprintf("w%d", i)
		for _, d := range []string{u, w} {
			if err := os.Mkdir(filepath.Join(layer, d), 0o700); err != nil {
				return err
			}
		}
		spec.Mounts = append(spec.Mounts, sandbox.LayerMount{Root: r.Path, Upper: filepath.Join(layer, u), Work: filepath.Join(layer, w)})
		uppers = append(uppers, sandbox.UpperRoot{Root: r, Upper: u, Nested: j.Policy.Nested(r.Path)})
	}
	wrap := run.Wrap
	run.Wrap = func(argv []string, scratch string) ([]string, bool, error) {
		argv, limited, err := wrap(argv, scratch)
		if err != nil {
			return nil, false, err
		}
		if !limited {
			// Landlock keeps the tool out of the change store and off the roots' other paths.
			return nil, false, errors.New("a native tool runs in review mode only under Landlock, which is unavailable here")
		}
		argv, err = sandbox.WrapLayer(e.Self, spec, argv)
		return argv, limited, err
	}
	run.Attr = sandbox.LayerAttr(spec.UID, spec.GID)
	run.Review = func(out *engine.Outcome) {
		m, err := sandbox.UpperManifest(layer, uppers, j.Policy.Limits.MaxBytesWritten)
		for i := range spec.Mounts {
			// The overlay's work directory keeps a directory no one may enter: opened first.
			w := filepath.Join(spec.Mounts[i].Work, "work")
			os.Chmod(w, 0o700)
			os.RemoveAll(spec.Mounts[i].Work)
			os.RemoveAll(spec.Mounts[i].Upper)
		}
		var budget sandbox.ErrWriteBudget
		switch {
		case errors.As(err, &budget):
			out.SetLimit(engine.LimitBytesWritten, "Tool wrote more than %d bytes (its tenant's bytesWritten, else MCPBASH_MAX_BYTES_WRITTEN_PER_CALL)", budget.Max)
		case err != nil:
			out.ExitCode = 126
			out.Stderr = append(out.Stderr, []byte("mcp-bash: review mode: the tool's writes cannot be held for review (nothing was written): "+err.Error()+"\n")...)
		default:
			out.Review = m
		}
	}
	return nil
}

// run executes a prepared job and reports its outcome.
func (e *Engine) run(ctx context.Context, job job) *engine.Outcome {
	out := &engine.Outcome{}
	fail := func(msg string) *engine.Outcome {
		out.ExitCode, out.Stderr = 1, []byte("mcp-bash: "+msg)
		return out
	}
	// The paths the tool is given, as its bash names them (Git-Bash's /c/... on Windows).
	sh := sandbox.MSYSPath
	sdkDir, err := e.sdk()
	if err != nil {
		return fail("SDK directory: " + err.Error())
	}
	work, err := os.MkdirTemp(sandbox.ScratchBase(e.Base), "mcpbash-native-")
	if err != nil {
		return fail("scratch directory: " + err.Error())
	}
	defer os.RemoveAll(work)
	// The tool writes in work: every later access of the server goes through this descriptor,
	// by single names, never following what the tool planted (sandbox.SideDir).
	side, err := sandbox.OpenSideDir(work)
	if err != nil {
		return fail("scratch directory: " + err.Error())
	}
	defer side.Close()
	env := append([]string(nil), job.Env...)
	for k, f := range sideNames {
		if !strings.HasPrefix(k, "MCP_ELICIT") && !strings.HasPrefix(k, "MCP_SAMPLE") {
			if err := side.Create(f); err != nil {
				return fail("side file: " + err.Error())
			}
		}
		env = append(env, k+"="+sh(filepath.Join(work, f)))
	}
	cancelFile := sh(filepath.Join(work, cancelName))
	env = append(env, "MCP_CANCEL_FILE="+cancelFile, "MCP_TOOL_CANCELLATION_FILE="+cancelFile,
		"MCP_SDK="+sh(sdkDir), "MCPBASH_JSON_TOOL=jq", "MCPBASH_JSON_TOOL_BIN="+sh(filepath.Join(sdkDir, "jq")))
	if job.SDKDir != "" {
		env = append(env, "MCP_SDK="+sh(job.SDKDir))
	}
	if err := side.Mkdir("tmp", 0o700); err != nil {
		return fail("scratch directory: " + err.Error())
	}
	env = append(env, "TMPDIR="+sh(filepath.Join(work, "tmp")))
	// Large payloads go through files, as the original does: the variable is emptied and
	// <NAME>_FILE names the file (else unset).
	for _, name := range []string{"MCP_TOOL_ARGS", "MCP_TOOL_METADATA", "MCP_TOOL_META"} {
		val, ok := lookup(env, name+"_JSON")
		if !ok || len(val) <= job.Spill {
			continue
		}
		f := strings.ToLower(strings.TrimPrefix(name, "MCP_TOOL_")) + ".json"
		if err := side.WriteFile(f, []byte(val)); err != nil {
			return fail("payload file: " + err.Error())
		}
		env = append(env, name+"_JSON=", name+"_FILE="+sh(filepath.Join(work, f)))
	}

	runCtx, cancel := context.WithTimeout(ctx, job.Timeout)
	defer cancel()
	stdout := &capped{max: job.MaxStdout, full: make(chan struct{})}
	stderr := &capped{max: job.MaxStderr, tail: true, full: make(chan struct{})}
	argv := []string{job.Script}
	if fi, err := os.Stat(job.Script); err != nil || fi.Mode()&0o111 == 0 || bashArgs() != nil {
		bash := e.Bash
		if bash == "" {
			bash = "bash"
		}
		argv = append(append([]string{bash}, bashArgs()...), sh(job.Script))
	}
	argv = append(argv, job.Args...)
	limited := false
	// The access record of a native run is one entry: the script, and how it ran (confined by
	// which mechanism, or unconfined and why), as run-tool --sandbox shows it.
	rec := &sandbox.Record{}
	if job.Wrap != nil {
		if argv, limited, err = job.Wrap(argv, work); err != nil {
			rec.Add(sandbox.Access{Op: "exec", Path: job.Script, Reason: "native: cannot run: " + err.Error()})
			out.Access = engine.AccessJSON(rec)
			return fail(err.Error())
		}
	}
	if e.BashErr != nil {
		rec.Add(sandbox.Access{Op: "exec", Path: job.Script, Reason: "native: cannot run: " + e.BashErr.Error()})
		out.Access = engine.AccessJSON(rec)
		return fail(e.BashErr.Error())
	}
	rec.Add(sandbox.Access{Op: "exec", Path: job.Script, Allowed: true, Reason: "native (" + job.Confinement + ")"})
	out.Access = engine.AccessJSON(rec)
	// Without a wrapper that sets them (no Landlock), bash sets the limits and becomes the tool:
	// one more bash start per call. On Windows the process group's Job Object holds them.
	if p := job.Limits.prefix(); p != "" && !limited && !jobLimits {
		bash := e.Bash
		if bash == "" {
			bash = "bash"
		}
		argv = append([]string{bash, "-c", p, "mcp-bash-limits"}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = job.Dir, env, stdout, stderr
	if job.Attr != nil {
		cmd.SysProcAttr = job.Attr
	}
	var groupLimits []sandbox.Rlimit
	if jobLimits {
		groupLimits = job.Limits.Rlimits()
	}
	g, _, err := sandbox.StartGroup(cmd, groupLimits)
	if err != nil {
		return fail("cannot start tool: " + err.Error())
	}
	defer g.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	stop := make(chan struct{})
	st := &streams{side: side, call: job.Call, offsets: map[string]int64{}}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); st.run(ctx, stop) }()
	go func() { defer wg.Done(); elicit(ctx, job.Call, side, stop) }()

	var waitErr error
	select {
	case waitErr = <-done:
	case <-runCtx.Done():
		if ctx.Err() != nil {
			_ = side.Create(cancelName)
		}
		g.Terminate()
		select {
		case waitErr = <-done:
		case <-time.After(grace):
			g.Kill()
			waitErr = <-done
		}
	case <-stdout.full:
		g.Kill()
		waitErr = <-done
		out.SetLimit(engine.LimitStdout, "Tool output exceeded %d bytes", job.MaxStdout)
	case <-stderr.full:
		g.Kill()
		waitErr = <-done
		out.SetLimit(engine.LimitStderr, "Tool stderr exceeded %d bytes", job.MaxStderr)
	}
	// No orphans: whatever the tool left running in its group ends with the call.
	g.Kill()
	close(stop)
	wg.Wait()
	st.forward(ctx)

	out.Stdout, out.Stderr = stdout.Bytes(), stderr.Bytes()
	if st, ok := sandbox.ExitStatus(waitErr); ok {
		out.ExitCode = st
	} else {
		out.ExitCode = 1
	}
	switch {
	case job.Cancelled != nil && job.Cancelled():
		out.Cancelled = true
	case out.Limit == engine.LimitNone && errors.Is(runCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil:
		out.TimedOut = true
	case out.Limit == engine.LimitNone:
		if l, msg := job.Limits.hit(out.ExitCode, out.Stderr); l != engine.LimitNone {
			out.SetLimit(l, "%s", msg)
		}
	}
	var notes []string
	read := func(env string) []byte {
		data, err := side.ReadFile(sideNames[env], sandbox.SideFileMax)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			notes = append(notes, fmt.Sprintf("mcp-bash: %s ignored: %v\n", env, errors.Unwrap(err)))
			if errors.Is(err, sandbox.ErrSideFileTooLarge) && env == "MCP_TOOL_ERROR_FILE" {
				return []byte(fmt.Sprintf("%s exceeds %d bytes", env, sandbox.SideFileMax))
			}
		}
		return data
	}
	if job.Review != nil {
		job.Review(out)
	}
	out.Fail = sdk.ParseErrorFile(read("MCP_TOOL_ERROR_FILE"))
	out.Resources = sdk.ParseResourcesFile(read("MCP_TOOL_RESOURCES_FILE"))
	notes = append(notes, st.notes...)
	for _, n := range notes {
		out.Stderr = append(out.Stderr, n...)
	}
	// Embedded files are read through the roots, as in the sandbox: a native tool cannot use
	// its result to exfiltrate files outside them.
	if len(out.Resources) > 0 {
		if fsys, err := sandbox.NewFS(sandbox.Policy{Roots: job.Roots, ToolDir: job.Dir}, sandbox.Scratch{}, nil); err == nil {
			out.Embedded = sdk.EmbedResources(fsys, job.Dir, out.Resources)
			fsys.Close()
		}
	}
	return out
}

// capped collects output up to max; tail keeps the last 4 KiB (stderr), else the head.
type capped struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	n    int64
	max  int64
	tail bool
	full chan struct{}
	once sync.Once
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n += int64(len(p))
	if c.max > 0 && c.n > c.max {
		c.once.Do(func() { close(c.full) })
		if !c.tail {
			return len(p), nil
		}
	}
	c.buf.Write(p)
	if c.tail && c.buf.Len() > 4096 {
		b := c.buf.Bytes()
		keep := append([]byte(nil), b[len(b)-4096:]...)
		c.buf.Reset()
		c.buf.Write(keep)
	}
	return len(p), nil
}

func (c *capped) Bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Clone(c.buf.Bytes())
}

// sideNames are the contract's side files in the call's directory, by variable.
var sideNames = map[string]string{
	"MCP_TOOL_ERROR_FILE": "error.json", "MCP_TOOL_RESOURCES_FILE": "resources.json",
	"MCP_PROGRESS_STREAM": "progress.ndjson", "MCP_LOG_STREAM": "log.ndjson",
	"MCP_ELICIT_REQUEST_FILE": "elicit.request.json", "MCP_ELICIT_RESPONSE_FILE": "elicit.response.json",
	"MCP_SAMPLE_REQUEST_FILE": "sample.request.json", "MCP_SAMPLE_RESPONSE_FILE": "sample.response.json",
}

// cancelName is the cancel file, created when the client cancels.
const cancelName = "cancelled"

// streams follows the progress and log files while the tool runs, forwarding each complete
// line once, up to sandbox.SideStreamMax bytes per stream.
type streams struct {
	side    *sandbox.SideDir
	call    *engine.Call
	offsets map[string]int64
	notes   []string
}

func (s *streams) run(ctx context.Context, stop chan struct{}) {
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			s.forward(ctx)
		}
	}
}

// forward relays the lines written since the last pass; an incomplete last line waits. A
// stream that is not a regular file (a symlink, a FIFO) is skipped and named once.
func (s *streams) forward(ctx context.Context) {
	for _, env := range []string{"MCP_PROGRESS_STREAM", "MCP_LOG_STREAM"} {
		name := sideNames[env]
		off := s.offsets[name]
		if off < 0 || off >= sandbox.SideStreamMax {
			continue
		}
		f, err := s.side.OpenRegular(name)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				s.notes = append(s.notes, fmt.Sprintf("mcp-bash: %s ignored: %v\n", env, errors.Unwrap(err)))
				s.offsets[name] = -1
			}
			continue
		}
		if _, err := f.Seek(off, io.SeekStart); err == nil {
			r := bufio.NewReader(io.LimitReader(f, sandbox.SideStreamMax-off))
			for {
				line, err := r.ReadBytes('\n')
				if err != nil {
					if off+int64(len(line)) >= sandbox.SideStreamMax {
						s.notes = append(s.notes, fmt.Sprintf("mcp-bash: %s exceeds %d bytes; the rest was not forwarded\n", env, sandbox.SideStreamMax))
						off = sandbox.SideStreamMax
					}
					break
				}
				off += int64(len(line))
				sdk.ForwardStreamLine(ctx, s.call, line)
			}
		}
		s.offsets[name] = off
		f.Close()
	}
}

// elicit serves the Bash SDK's file-based requests to the client (elicitation and sampling): it
// waits for a request file, asks, and writes the answer where the script polls for it. A
// request that is not a regular file of at most sandbox.SideFileMax bytes is removed and
// answered as malformed.
func elicit(ctx context.Context, call *engine.Call, side *sandbox.SideDir, stop chan struct{}) {
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	serve := func(req, resp string, answer func([]byte) []byte) {
		data, err := side.ReadFile(req, sandbox.SideFileMax)
		if errors.Is(err, fs.ErrNotExist) {
			return
		}
		_ = side.Remove(req)
		if err != nil {
			data = nil
		}
		_ = side.WriteFile(resp, answer(data))
	}
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		serve(sideNames["MCP_ELICIT_REQUEST_FILE"], sideNames["MCP_ELICIT_RESPONSE_FILE"], func(data []byte) []byte { return askClient(ctx, call, data) })
		serve(sideNames["MCP_SAMPLE_REQUEST_FILE"], sideNames["MCP_SAMPLE_RESPONSE_FILE"], func(data []byte) []byte { return sampleClient(ctx, call, data) })
	}
}

// sampleClient answers one mcp_sample request file ({"args":[...]}) with what the sandbox's
// mcp_sample would print and return: {"status","stdout","stderr"}.
func sampleClient(ctx context.Context, call *engine.Call, data []byte) []byte {
	var req struct {
		Args []string `json:"args"`
	}
	out, errOut, status := "", "mcp_sample: malformed request\n", 2
	if json.Unmarshal(data, &req) == nil {
		out, errOut, status = sdk.RunSample(ctx, call, req.Args)
	}
	b, _ := json.Marshal(map[string]any{"status": status, "stdout": out, "stderr": errOut})
	return append(b, '\n')
}

// askClient turns one request file into the {"action","content"} answer.
func askClient(ctx context.Context, call *engine.Call, data []byte) []byte {
	var req struct {
		Message string          `json:"message"`
		Schema  json.RawMessage `json:"schema"`
		URL     string          `json:"url"`
		Mode    string          `json:"mode"`
		Timeout float64         `json:"timeout"`
	}
	if err := json.Unmarshal(data, &req); err != nil {
		return []byte(`{"action":"error","content":null}` + "\n")
	}
	timeout := 30 * time.Second
	if req.Timeout > 0 {
		timeout = time.Duration(req.Timeout * float64(time.Second))
	}
	mode := "form"
	if req.Mode == "url" {
		mode = "url"
	}
	line, _, _ := sdk.ElicitAnswer(ctx, call, engine.ElicitRequest{Mode: mode, Message: req.Message, Schema: req.Schema, URL: req.URL, Timeout: timeout})
	return line
}

// hit names the rlimit that ended a tool, from its exit status and its stderr; LimitNone for
// none. The kernel says CPU and file size by signal; an exhausted address space has no signal
// of its own, only the words of bash (xmalloc), Go programs ("out of memory") or libc, so the
// stderr tail is read for those, here only: this turns them into a typed cause at the engine's
// edge, and no caller reads the text again. bash also reports, on stderr, a child killed by
// SIGXCPU or SIGXFSZ while the script went on.
func (l Limits) hit(code int, stderr []byte) (engine.Limit, string) {
	has := func(s string) bool { return bytes.Contains(stderr, []byte(s)) }
	switch {
	case l.CPUSeconds > 0 && (code == cpuLimitStatus || has("CPU time limit exceeded")):
		return engine.LimitCPU, fmt.Sprintf("Tool exceeded the CPU time limit (%d s)", l.CPUSeconds)
	case l.FileSizeKiB > 0 && (code == fileSizeLimitStatus || has("File size limit exceeded")):
		return engine.LimitFileSize, fmt.Sprintf("Tool exceeded the file size limit (%d KiB)", l.FileSizeKiB)
	case l.AddressSpaceKiB > 0 && code != 0 && (has("cannot allocate") || has("out of memory") ||
		has("failed to reserve page summary memory")):
		return engine.LimitMemory, fmt.Sprintf("Tool exceeded the memory limit (%d MiB of address space)", l.AddressSpaceKiB>>10)
	}
	return engine.LimitNone, ""
}

// secretName matches variables that must not reach a tool through the minimal mode's MCP_* /
// MCPBASH_* pass-through (COMPAT §7 #8: the original leaked MCPBASH_REMOTE_TOKEN and similar).
var secretName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)TOKEN|SECRET|PASSW|CREDENTIAL|PRIVATE|_KEY($|_)|APIKEY`)
})

// environment is a native tool's starting environment for the configured mode: the contract
// variables (the Job's Env) win over anything from the server's.
func (e *Engine) environment(j engine.Job) []string {
	var host []string
	if e.Env.Environ != nil {
		host = e.Env.Environ()
	}
	get := func(name string) (string, bool) {
		for i := len(host) - 1; i >= 0; i-- {
			if v, ok := strings.CutPrefix(host[i], name+"="); ok {
				return v, true
			}
		}
		return "", false
	}
	var env []string
	switch e.Env.Mode {
	case "inherit":
		for _, kv := range host {
			if !strings.HasPrefix(kv, "MCPBASH_REMOTE_TOKEN") {
				env = append(env, kv)
			}
		}
	default:
		allowMode := e.Env.Mode == "allowlist"
		for _, kv := range host {
			name, _, _ := strings.Cut(kv, "=")
			switch {
			case strings.HasPrefix(name, "MCPBASH_REMOTE_TOKEN"):
				// The transport's secret never reaches a tool, even when named.
			case allowMode && slices.Contains(e.Env.Allow, name):
				env = append(env, kv)
			case (strings.HasPrefix(name, "MCP_") || strings.HasPrefix(name, "MCPBASH_")) && !secretName().MatchString(name):
				env = append(env, kv)
			}
		}
		for _, name := range []string{"PATH", "HOME", "LANG"} {
			if v, ok := get(name); ok {
				env = append(env, name+"="+v)
			}
		}
	}
	// PATH, HOME and LANG are kept, and defaulted when unset (HOME to the project root).
	for name, def := range map[string]string{"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": e.Project, "LANG": "C"} {
		if v, _ := get(name); v == "" {
			env = append(env, name+"="+def)
		}
	}
	j.EachEnv(func(k, v string) { env = append(env, k+"="+v) })
	return env
}

// Environment is the environment a tool's script starts with (run-tool --print-env), with the
// per-call paths named rather than created, as exec sees it (the last value of a name wins).
func (e *Engine) Environment(j engine.Job) []string {
	env := e.environment(j)
	sdkDir := e.SDKDir
	if sdkDir == "" {
		sdkDir = "(per-process read-only copy of the embedded SDK)"
	}
	env = append(env, "MCP_SDK="+sdkDir, "MCPBASH_JSON_TOOL_BIN=(mcp-bash jq wrapper in MCP_SDK)",
		"TMPDIR=(per-call scratch)", "MCP_TOOL_ERROR_FILE=(per-call)", "MCP_TOOL_RESOURCES_FILE=(per-call)",
		"MCP_PROGRESS_STREAM=(per-call)", "MCP_LOG_STREAM=(per-call)")
	last := map[string]int{}
	for i, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		last[name] = i
	}
	var out []string
	for i, kv := range env {
		if name, _, _ := strings.Cut(kv, "="); last[name] == i {
			out = append(out, kv)
		}
	}
	slices.Sort(out)
	return out
}
