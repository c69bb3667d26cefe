package sandbox

import (
	"errors"
	"strings"
	"testing"
)

func TestHeadAndTailBuffers(t *testing.T) {
	fulls := 0
	var cause error
	h := &HeadBuffer{Max: 10, OnFull: func(err error) { fulls++; cause = err }}
	if n, err := h.Write([]byte("12345")); n != 5 || err != nil {
		t.Fatal(n, err)
	}
	if _, err := h.Write([]byte("6789abc")); !errors.Is(err, ErrStdoutLimit) {
		t.Fatalf("over the cap: %v", err)
	}
	if _, err := h.Write([]byte("x")); !errors.Is(err, ErrStdoutLimit) || fulls != 1 || cause != ErrStdoutLimit {
		t.Fatalf("after the cap: %v, OnFull %d times with %v", err, fulls, cause)
	}
	if string(h.Bytes()) != "123456789a" {
		t.Fatalf("kept %q", h.Bytes())
	}

	fulls = 0
	tb := &TailBuffer{Keep: 4, Max: 12, OnFull: func(err error) { fulls++; cause = err }}
	for _, s := range []string{"abc", "defg", "hij"} {
		if _, err := tb.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	if string(tb.Tail()) != "ghij" {
		t.Fatalf("tail %q", tb.Tail())
	}
	if _, err := tb.Write([]byte(strings.Repeat("z", 5))); !errors.Is(err, ErrStderrLimit) || fulls != 1 || cause != ErrStderrLimit {
		t.Fatalf("past Max: %v, OnFull %d times with %v", err, fulls, cause)
	}
}
