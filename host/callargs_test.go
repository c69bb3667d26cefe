package host

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCallArgumentsBoundNumbers: a number longer than maxArgNumberChars in a call's arguments
// is refused before schema validation reads it (big.Rat, quadratic in its digits); strings of
// digits, and numbers up to the bound, pass.
func TestCallArgumentsBoundNumbers(t *testing.T) {
	long := strings.Repeat("9", maxArgNumberChars+1)
	for _, c := range []struct {
		args string
		ok   bool
	}{
		{`{"n": 1, "s": "x", "b": true, "z": null}`, true},
		{`{"n": ` + strings.Repeat("9", maxArgNumberChars) + `}`, true},
		{`{"n": ` + long + `}`, false},
		{`{"n": [1, {"m": -0.` + long + `}]}`, false},
		{`{"n": 1e` + long + `}`, false},
		{`{"s": "` + long + `"}`, true},
		{`{"s": "\"` + long + `\\", "t": 1}`, true},
	} {
		_, _, err := callArguments(ToolCall{Arguments: json.RawMessage(c.args)})
		if (err == nil) != c.ok {
			t.Errorf("%.40s...: %v, want ok %v", c.args, err, c.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "a number longer than") {
			t.Errorf("%.40s...: %v", c.args, err)
		}
	}
}

// TestDecodeOutputBoundsNumbers: output with a number longer than maxArgNumberChars is text,
// not a value an outputSchema is checked on.
func TestDecodeOutputBoundsNumbers(t *testing.T) {
	if _, ok := decodeOutput(`{"n": 0.` + strings.Repeat("1", maxArgNumberChars) + `}`); ok {
		t.Error("a long number was decoded for validation")
	}
	if _, ok := decodeOutput(`{"n": 0.` + strings.Repeat("1", 100) + `}`); !ok {
		t.Error("a number of 100 digits was not decoded")
	}
}
