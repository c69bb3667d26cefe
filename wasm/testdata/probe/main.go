// Command probe is the test guest for wasm tools and commands: each mode tries one thing
// (an escape, a limit, a part of the contract) and prints what happened.
//
// As a tool it takes {"mode":..., "path":..., "target":...}; as a command, `probe MODE [PATH
// [TARGET]]`.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-bash/mcp-bash/sdk/wasmguest"
)

type args struct {
	Mode   string `json:"mode"`
	Path   string `json:"path"`
	Target string `json:"target"`
	Code   int    `json:"code"`
}

func main() {
	var a args
	if len(os.Args) > 1 {
		a.Mode = os.Args[1]
		if len(os.Args) > 2 {
			a.Path = os.Args[2]
		}
		if len(os.Args) > 3 {
			a.Target = os.Args[3]
		}
	} else if err := wasmguest.Args(&a); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	switch a.Mode {
	case "read":
		b, err := os.ReadFile(a.Path)
		report(string(b), err)
	case "write":
		report("wrote", os.WriteFile(a.Path, []byte("written by probe\n"), 0o644))
	case "append":
		f, err := os.OpenFile(a.Path, os.O_WRONLY|os.O_APPEND, 0)
		if err == nil {
			_, err = f.WriteString("appended by probe\n")
			f.Close()
		}
		report("appended", err)
	case "list":
		ents, err := os.ReadDir(a.Path)
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		report(strings.Join(names, ","), err)
	case "stat":
		fi, err := os.Stat(a.Path)
		if err == nil {
			report(fmt.Sprintf("%s %d %v", fi.Name(), fi.Size(), fi.IsDir()), nil)
		} else {
			report("", err)
		}
	case "symlink":
		err := os.Symlink(a.Target, a.Path)
		if err == nil {
			b, rerr := os.ReadFile(a.Path)
			report("symlinked: "+string(b), rerr)
		} else {
			report("", err)
		}
	case "link":
		err := os.Link(a.Target, a.Path)
		if err == nil {
			b, rerr := os.ReadFile(a.Path)
			report("linked: "+string(b), rerr)
		} else {
			report("", err)
		}
	case "rename":
		report("renamed", os.Rename(a.Target, a.Path))
	case "mkdir":
		report("made", os.MkdirAll(a.Path, 0o755))
	case "remove":
		report("removed", os.Remove(a.Path))
	case "env":
		wd, _ := os.Getwd()
		out := map[string]any{"args": os.Args, "cwd": wd, "env": os.Environ()}
		_ = wasmguest.JSON(out)
	case "args":
		data, _ := wasmguest.ArgsJSON()
		stdin, _ := io.ReadAll(os.Stdin)
		_ = wasmguest.JSON(map[string]any{"args": json.RawMessage(data), "stdin": string(stdin)})
	case "progress":
		for i := 1; i <= 3; i++ {
			wasmguest.Progress(i*30, "step "+strconv.Itoa(i))
		}
		wasmguest.Log("info", "probe", "hello from wasm")
		wasmguest.Log("warning", "probe", `{"k":1}`)
		fmt.Println("done")
	case "exit":
		if a.Path != "" {
			a.Code, _ = strconv.Atoi(a.Path)
		}
		fmt.Fprintln(os.Stderr, "exiting with", a.Code)
		os.Exit(a.Code)
	case "fail":
		wasmguest.Fail(-32001, "probe failed on purpose", map[string]any{"why": "test"})
	case "loop":
		n := 0
		for {
			n++
		}
	case "sleep":
		time.Sleep(time.Hour)
	case "stdin":
		// Reads stdin to the end: blocks for ever on a pipe that is never closed.
		n, _ := io.Copy(io.Discard, os.Stdin)
		fmt.Println("read", n)
	case "alloc":
		b := make([]byte, 1<<30)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		fmt.Println("allocated", len(b))
	case "spew":
		line := []byte(strings.Repeat("x", 1023) + "\n")
		for {
			os.Stdout.Write(line)
		}
	case "upper":
		// A filter: stdin to stdout, upper-cased, line by line.
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			fmt.Println(strings.ToUpper(sc.Text()))
		}
	case "cancelled":
		for !wasmguest.Cancelled() {
			time.Sleep(10 * time.Millisecond)
		}
		fmt.Println("saw cancellation")
	default:
		fmt.Fprintf(os.Stderr, "probe: unknown mode %q\n", a.Mode)
		os.Exit(2)
	}
}

// report prints "OK <what>" or "ERR <error>" (exit 0 either way, so results carry the text).
func report(what string, err error) {
	if err != nil {
		fmt.Println("ERR", err)
		return
	}
	fmt.Println("OK", what)
}
