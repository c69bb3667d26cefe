package sse

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func events(s string) []string {
	var out []string
	for _, ev := range strings.Split(strings.TrimSpace(s), "\n\n") {
		if ev != "" {
			out = append(out, ev)
		}
	}
	return out
}

// Events pushed with no connection wait for one; events written stay for a replay after any id;
// a replay from an evicted point is refused.
func TestStreamReplayAndResume(t *testing.T) {
	s := New("7", 1<<20)
	if err := s.Push([]byte(`{"a":1}`), false, false); err != nil {
		t.Fatal(err)
	}
	w1 := httptest.NewRecorder()
	c1 := NewConn(w1)
	if err := s.Attach(c1, 0, false); err != nil {
		t.Fatal(err)
	}
	s.Push([]byte(`{"b":2}`), true, false)
	if got := events(w1.Body.String()); len(got) != 2 || got[0] != "id: 7_1\ndata: {\"a\":1}" || got[1] != "id: 7_2\ndata: {\"b\":2}" {
		t.Fatalf("first connection got %q", got)
	}
	s.Detach(c1)
	select {
	case <-c1.Gone():
	default:
		t.Fatal("a detached connection is not released")
	}
	s.Push([]byte(`{"c":3}`), false, true) // the final event, while nobody listens
	select {
	case <-s.Done():
		t.Fatal("done before the final event reached a connection")
	default:
	}
	w2 := httptest.NewRecorder()
	if err := s.Attach(NewConn(w2), 1, true); err != nil {
		t.Fatal(err)
	}
	if got := events(w2.Body.String()); len(got) != 2 || !strings.HasPrefix(got[0], "id: 7_2") || !strings.HasPrefix(got[1], "id: 7_3") {
		t.Fatalf("resumed connection got %q", got)
	}
	select {
	case <-s.Done():
	default:
		t.Fatal("not done after the final event was written")
	}
	if err := s.Attach(NewConn(httptest.NewRecorder()), 9, true); !errors.Is(err, ErrGone) {
		t.Errorf("resume after an id never issued: %v", err)
	}
}

// The budget: written events beyond it are evicted (so old ids cannot be resumed), and
// droppable events beyond it are refused while nobody reads; others always go in.
func TestStreamBudget(t *testing.T) {
	s := New("1", 100)
	big := bytes.Repeat([]byte("x"), 60)
	w := httptest.NewRecorder()
	s.Attach(NewConn(w), 0, false)
	for range 5 {
		s.Push(big, true, false)
	}
	if s.Buffered() > 100+len(big)+20 {
		t.Errorf("%d bytes buffered, budget 100", s.Buffered())
	}
	if err := s.Attach(NewConn(httptest.NewRecorder()), 1, true); !errors.Is(err, ErrGone) {
		t.Errorf("resume from an evicted event: %v", err)
	}
	idle := New("2", 100)
	if err := idle.Push(big, true, false); err != nil {
		t.Fatal(err)
	}
	if err := idle.Push(big, true, false); !errors.Is(err, ErrDropped) {
		t.Errorf("second droppable event with nobody reading: %v", err)
	}
	if err := idle.Push(big, false, false); err != nil {
		t.Errorf("a response must never be dropped: %v", err)
	}
	if idle.Dropped() != 1 {
		t.Errorf("dropped %d", idle.Dropped())
	}
}

// A stream without an id writes no ids and keeps nothing once written.
func TestStreamWithoutIDs(t *testing.T) {
	s := New("", 1<<20)
	w := httptest.NewRecorder()
	s.Attach(NewConn(w), 0, false)
	s.Push([]byte(`{}`), false, true)
	if w.Body.String() != "data: {}\n\n" || s.Buffered() != 0 {
		t.Errorf("body %q, %d bytes kept", w.Body.String(), s.Buffered())
	}
}

// A failing write releases the connection and keeps the event for the next one.
func TestStreamWriteFailure(t *testing.T) {
	s := New("3", 1<<20)
	c := NewConn(failing{httptest.NewRecorder()})
	s.Attach(c, 0, false)
	s.Push([]byte(`{"x":1}`), false, false)
	select {
	case <-c.Gone():
	default:
		t.Fatal("connection kept after a failed write")
	}
	w := httptest.NewRecorder()
	s.Attach(NewConn(w), 0, false)
	if !strings.Contains(w.Body.String(), `{"x":1}`) {
		t.Errorf("event lost: %q", w.Body.String())
	}
}

type failing struct{ *httptest.ResponseRecorder }

func (failing) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

func TestParseEventID(t *testing.T) {
	for _, tc := range []struct {
		in     string
		stream string
		seq    uint64
		ok     bool
	}{{"3_17", "3", 17, true}, {"a_b_2", "a_b", 2, true}, {"x", "", 0, false}, {"_1", "", 0, false}, {"1_x", "", 0, false}} {
		st, seq, ok := ParseEventID(tc.in)
		if st != tc.stream || seq != tc.seq || ok != tc.ok {
			t.Errorf("ParseEventID(%q) = %q %d %v", tc.in, st, seq, ok)
		}
	}
}

var _ http.ResponseWriter = failing{}
