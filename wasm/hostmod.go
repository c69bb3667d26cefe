package wasm

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"reflect"
	"strings"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/mcp-bash/mcp-bash/sandbox/engine"
)

// HostModule is the name of the module guests import progress, logs and cancellation from.
const HostModule = "mcp"

// callKey carries a running instance's call into the host functions.
type callKey struct{}

type callState struct {
	call      *engine.Call
	cancelled func() bool
}

func stateOf(ctx context.Context) *callState {
	s, _ := ctx.Value(callKey{}).(*callState)
	return s
}

// instantiateHostModule defines the `mcp` module:
//
//	progress(pct f64, msg_ptr i32, msg_len i32)
//	log(level_ptr i32, level_len i32, logger_ptr i32, logger_len i32, msg_ptr i32, msg_len i32)
//	is_cancelled() i32
//
// Strings are UTF-8 bytes in the guest's memory. A log message that is valid JSON is sent as
// that JSON value, anything else as a JSON string (as mcp_log does for scripts).
func instantiateHostModule(ctx context.Context, rt wazero.Runtime) error {
	i32, f64 := api.ValueTypeI32, api.ValueTypeF64
	_, err := rt.NewHostModuleBuilder(HostModule).
		NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(progress), []api.ValueType{f64, i32, i32}, nil).
		WithParameterNames("pct", "msg_ptr", "msg_len").Export("progress").
		NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(logMessage), []api.ValueType{i32, i32, i32, i32, i32, i32}, nil).
		WithParameterNames("level_ptr", "level_len", "logger_ptr", "logger_len", "msg_ptr", "msg_len").Export("log").
		NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(isCancelled), nil, []api.ValueType{i32}).
		Export("is_cancelled").
		Instantiate(ctx)
	return err
}

// guestString reads a string from guest memory, capped at 64 KiB; empty when the module has
// no memory or the range is outside it (a guest must not be able to make a host function
// panic).
func guestString(m api.Module, ptr, n uint64) string {
	mem := m.Memory()
	if v := reflect.ValueOf(mem); !v.IsValid() || (v.Kind() == reflect.Pointer && v.IsNil()) {
		// wazero answers a module without memory with a nil *MemoryInstance in the interface.
		return ""
	}
	// i32 arguments live in the low 32 bits of their stack slot.
	size := min(api.DecodeU32(n), 64<<10)
	b, ok := mem.Read(api.DecodeU32(ptr), size)
	if !ok {
		return ""
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

func progress(ctx context.Context, m api.Module, stack []uint64) {
	s := stateOf(ctx)
	if s == nil || s.call == nil || s.call.Sink == nil || s.call.ProgressToken == nil {
		return
	}
	pct := api.DecodeF64(stack[0])
	if math.IsNaN(pct) {
		pct = 0
	}
	pct = math.Max(0, math.Min(100, math.Trunc(pct)))
	s.call.Sink.Progress(ctx, pct, nil, guestString(m, stack[1], stack[2]))
}

var levels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

func logMessage(ctx context.Context, m api.Module, stack []uint64) {
	s := stateOf(ctx)
	if s == nil || s.call == nil || s.call.Sink == nil {
		return
	}
	level := strings.ToLower(strings.TrimSpace(guestString(m, stack[0], stack[1])))
	if level == "warn" {
		level = "warning"
	}
	found := false
	for _, l := range levels {
		found = found || l == level
	}
	if !found {
		level = "info"
	}
	msg := guestString(m, stack[4], stack[5])
	var data json.RawMessage
	var buf bytes.Buffer
	if json.Compact(&buf, []byte(msg)) == nil && buf.Len() > 0 {
		data = buf.Bytes()
	} else {
		data, _ = json.Marshal(msg)
	}
	s.call.Sink.Log(ctx, level, guestString(m, stack[2], stack[3]), data)
}

func isCancelled(ctx context.Context, _ api.Module, stack []uint64) {
	stack[0] = 0
	if ctx.Err() != nil {
		stack[0] = 1
		return
	}
	if s := stateOf(ctx); s != nil && s.cancelled != nil && s.cancelled() {
		stack[0] = 1
	}
}
