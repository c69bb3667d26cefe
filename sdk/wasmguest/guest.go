// Package wasmguest is the tool SDK for Go programs built as WebAssembly tools and commands
// for mcp-bash (GOOS=wasip1 GOARCH=wasm). It reads the call's arguments, writes results in the
// shapes the server understands, and reaches the server's `mcp` host module for progress,
// logs and cancellation. Built for another platform it still compiles: the host calls are
// no-ops there, so tool logic can be unit-tested natively.
package wasmguest

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"unsafe"
)

var (
	argsOnce sync.Once
	argsData []byte
	argsErr  error
)

// ArgsJSON returns the call's arguments as JSON: stdin, read once (a tool's stdin is exactly
// the arguments), else MCP_TOOL_ARGS_JSON, else {}.
func ArgsJSON() ([]byte, error) {
	argsOnce.Do(func() {
		if v := os.Getenv("MCP_TOOL_ARGS_JSON"); v != "" {
			argsData = []byte(v)
			return
		}
		argsData, argsErr = io.ReadAll(os.Stdin)
		if len(argsData) == 0 && argsErr == nil {
			argsData = []byte("{}")
		}
	})
	return argsData, argsErr
}

// Args decodes the call's arguments into v.
func Args(v any) error {
	data, err := ArgsJSON()
	if err != nil {
		return fmt.Errorf("wasmguest: reading arguments: %w", err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("wasmguest: decoding arguments: %w", err)
	}
	return nil
}

// Text writes a text result (the whole of stdout is the result's text).
func Text(s string) {
	_, _ = io.WriteString(os.Stdout, s)
}

// JSON writes a JSON result; an object becomes the result's structuredContent (and must match
// the tool's outputSchema when it declares one).
func JSON(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = os.Stdout.Write(append(b, '\n'))
	return err
}

// ErrorResult writes a tool result with isError set (the model sees msg) and exits 0.
func ErrorResult(msg string) {
	_ = JSON(map[string]any{"content": []any{map[string]any{"type": "text", "text": msg}}, "isError": true})
	os.Exit(0)
}

// Fail ends the call with a JSON-RPC error (code, message, optional data) and exit status 1.
func Fail(code int, message string, data any) {
	e := map[string]any{"code": code, "message": message}
	if data != nil {
		e["data"] = data
	}
	_ = JSON(e)
	os.Exit(1)
}

// Progress reports pct (0..100) with a message. The server forwards it only when the client
// asked for progress, and only when it increases.
func Progress(pct int, msg string) {
	hostProgress(float64(pct), strPtr(msg), uint32(len(msg)))
}

// Log sends a log notification at level (debug, info, notice, warning, error, critical, alert,
// emergency) from logger; a msg that is valid JSON is sent as that value, anything else as a
// string.
func Log(level, logger, msg string) {
	hostLog(strPtr(level), uint32(len(level)), strPtr(logger), uint32(len(logger)), strPtr(msg), uint32(len(msg)))
}

// LogJSON sends v as the data of a log notification.
func LogJSON(level, logger string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	Log(level, logger, string(b))
	return nil
}

// Cancelled reports whether the client cancelled the call (or its time ran out). A guest that
// loops should check it and stop; the server ends it anyway when the call ends.
func Cancelled() bool { return hostIsCancelled() != 0 }

func strPtr(s string) unsafe.Pointer {
	if s == "" {
		return nil
	}
	return unsafe.Pointer(unsafe.StringData(s))
}
