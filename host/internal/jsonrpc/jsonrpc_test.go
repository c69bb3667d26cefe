package jsonrpc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestNormalize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"\xEF\xBB\xBF{\"a\":1}\r", `{"a":1}`},
		{"  {}\t ", `{}`},
		{"\r", ``},
		{"", ``},
	}
	for _, tt := range tests {
		if got := string(Normalize([]byte(tt.in))); got != tt.want {
			t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestDecode(t *testing.T) {
	tests := []struct {
		name     string
		line     string
		batch    bool
		kinds    []Kind // per item; KindInvalid means an error item
		errCodes []int
		id       string
	}{
		{"request string id", `{"jsonrpc":"2.0","id":"x","method":"ping"}`, false, []Kind{KindRequest}, []int{0}, `"x"`},
		{"request id 0", `{"jsonrpc":"2.0","id":0,"method":"ping"}`, false, []Kind{KindRequest}, []int{0}, `0`},
		{"large id exact", `{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, false, []Kind{KindRequest}, []int{0}, `9007199254740993`},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, false, []Kind{KindNotification}, []int{0}, ``},
		{"response", `{"jsonrpc":"2.0","id":5,"result":{}}`, false, []Kind{KindResponse}, []int{0}, `5`},
		{"error response", `{"jsonrpc":"2.0","id":5,"error":{"code":1,"message":"m"}}`, false, []Kind{KindResponse}, []int{0}, `5`},
		{"parse error", `{"jsonrpc":`, false, []Kind{KindInvalid}, []int{CodeParseError}, ``},
		{"not an object", `42`, false, []Kind{KindInvalid}, []int{CodeInvalidRequest}, ``},
		{"missing method keeps id", `{"jsonrpc":"2.0","id":7}`, false, []Kind{KindInvalid}, []int{CodeInvalidRequest}, `7`},
		{"bad version", `{"jsonrpc":"1.0","id":1,"method":"x"}`, false, []Kind{KindInvalid}, []int{CodeInvalidRequest}, `1`},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"x"}`, false, []Kind{KindInvalid}, []int{CodeInvalidRequest}, ``},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"x"}`, false, []Kind{KindInvalid}, []int{CodeInvalidRequest}, ``},
		{"params scalar", `{"jsonrpc":"2.0","id":1,"method":"x","params":3}`, false, []Kind{KindInvalid}, []int{CodeInvalidRequest}, `1`},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"a"},3]`, true, []Kind{KindRequest, KindInvalid}, []int{0, CodeInvalidRequest}, `1`},
		{"empty batch", `[]`, true, []Kind{KindInvalid}, []int{CodeInvalidRequest}, ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			items, batch := Decode([]byte(tt.line))
			if batch != tt.batch {
				t.Fatalf("batch = %v, want %v", batch, tt.batch)
			}
			if len(items) != len(tt.kinds) {
				t.Fatalf("got %d items, want %d", len(items), len(tt.kinds))
			}
			for i, it := range items {
				if tt.kinds[i] == KindInvalid {
					if it.Err == nil || it.Err.Code != tt.errCodes[i] {
						t.Fatalf("item %d: err = %+v, want code %d", i, it.Err, tt.errCodes[i])
					}
				} else if it.Msg == nil || it.Msg.Kind() != tt.kinds[i] {
					t.Fatalf("item %d: msg = %+v, want kind %v", i, it.Msg, tt.kinds[i])
				}
			}
			if got := string(items[0].ID); got != tt.id {
				t.Errorf("id = %q, want %q", got, tt.id)
			}
		})
	}
}

func TestResponseRoundTripsIDs(t *testing.T) {
	for _, id := range []string{`"x"`, `0`, `9007199254740993`, `-1`, `"\u00e9"`} {
		b, err := Response([]byte(id), nil)
		if err != nil {
			t.Fatal(err)
		}
		want := `{"jsonrpc":"2.0","id":` + id + `,"result":{}}`
		if string(b) != want {
			t.Errorf("Response(%s) = %s, want %s", id, b, want)
		}
	}
	if got := string(ErrorResponse(nil, &Error{Code: -32700, Message: "Parse error"})); got != `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}` {
		t.Errorf("ErrorResponse(nil) = %s", got)
	}
}

func TestReaderLines(t *testing.T) {
	long := strings.Repeat("a", 100)
	in := "one\r\n" + long + "\nthree\nlast"
	r := NewReader(strings.NewReader(in), 50)
	var got []string
	var tooLong int
	for {
		line, err := r.ReadLine()
		if errors.Is(err, io.EOF) {
			break
		}
		var tl *LineTooLongError
		if errors.As(err, &tl) {
			tooLong++
			if tl.Limit != 50 || tl.Size != 100 {
				t.Errorf("LineTooLongError = %+v", tl)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(line))
	}
	want := []string{"one\r", "three", "last"}
	if strings.Join(got, "|") != strings.Join(want, "|") || tooLong != 1 {
		t.Fatalf("lines = %q (tooLong %d), want %q and 1", got, tooLong, want)
	}
}

func TestReaderExactlyAtLimit(t *testing.T) {
	r := NewReader(strings.NewReader(strings.Repeat("b", 50)+"\n"), 50)
	line, err := r.ReadLine()
	if err != nil || len(line) != 50 {
		t.Fatalf("ReadLine = %d bytes, %v; want 50, nil", len(line), err)
	}
}

func TestWriterOneLinePerMessage(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf, 4, 0)
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := w.Send(context.Background(), []byte(`{"jsonrpc":"2.0","method":"n"}`)); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 50 {
		t.Fatalf("got %d lines, want 50", len(lines))
	}
	for _, l := range lines {
		if l != `{"jsonrpc":"2.0","method":"n"}` {
			t.Fatalf("interleaved line %q", l)
		}
	}
	if err := w.Send(context.Background(), []byte("x")); !errors.Is(err, ErrWriterClosed) {
		t.Fatalf("Send after Close = %v", err)
	}
}

func TestWriterBackpressureHonoursContext(t *testing.T) {
	pr, pw := io.Pipe()
	defer pr.Close()
	w := NewWriter(pw, 1, 0)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		// A line too large to be written by its sender goes through the queue, and the writer
		// goroutine blocks on it: every later line has to queue behind it.
		err := w.Send(ctx, []byte(`"`+strings.Repeat("x", maxDirect)+`"`))
		for err == nil {
			err = w.Send(ctx, []byte("{}"))
		}
		errc <- err
	}()
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("Send with blocked peer = %v, want context.Canceled", err)
	}
	pr.Close()
	_ = w.Close()
}

// TestWriterOrderPerSender: a sender's small lines, which it may write itself, never overtake
// its own earlier lines that went through the queue, and every line is whole.
func TestWriterOrderPerSender(t *testing.T) {
	pr, pw := io.Pipe()
	w := NewWriter(pw, 4, 0)
	var want []string
	for i := range 200 {
		l := fmt.Sprintf(`{"n":%d}`, i)
		if i%7 == 0 {
			l = fmt.Sprintf(`{"n":%d,"pad":"%s"}`, i, strings.Repeat("p", maxDirect))
		}
		want = append(want, l)
	}
	done := make(chan error, 1)
	go func() {
		for _, l := range want {
			if err := w.Send(context.Background(), []byte(l)); err != nil {
				done <- err
				pw.CloseWithError(err)
				return
			}
		}
		done <- w.Close()
		pw.Close()
	}()
	// Read slowly at first, so the queue fills and drains while small lines keep coming.
	r := bufio.NewReaderSize(pr, 64)
	var got []string
	for {
		l, err := r.ReadString('\n')
		if err != nil {
			break
		}
		if len(got) < 20 {
			time.Sleep(time.Millisecond)
		}
		got = append(got, strings.TrimSuffix(l, "\n"))
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("got %d lines, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("line %d: got %.40q, want %.40q", i, got[i], want[i])
		}
	}
}

// TestWriterByteBudget: with the peer not reading, queued bytes stay within the budget (one line
// larger than the budget still goes out alone), and every line arrives once reading resumes.
func TestWriterByteBudget(t *testing.T) {
	for _, tc := range []struct {
		name          string
		budget, lines int
		size          int
	}{
		{"lines smaller than the budget", 200 << 10, 60, 20 << 10},
		{"lines larger than the budget", 100 << 10, 6, 300 << 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pr, pw := io.Pipe()
			w := NewWriter(pw, 1024, tc.budget)
			var wg sync.WaitGroup
			var sent atomic.Int32
			for i := 0; i < tc.lines; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if err := w.Send(context.Background(), bytes.Repeat([]byte("x"), tc.size)); err != nil {
						t.Error(err)
					}
					sent.Add(1)
				}()
			}
			// Nobody reads: the loop fills its 64 KiB buffer and is stuck writing to the pipe; the
			// queue holds what fits the budget (at least one line); every other sender waits.
			time.Sleep(100 * time.Millisecond)
			if fit := max(1, tc.budget/tc.size) + (64<<10)/tc.size + 2; int(sent.Load()) > fit {
				t.Errorf("%d sends returned while the peer was not reading; the budget fits %d", sent.Load(), fit)
			}
			got := make(chan int)
			go func() {
				n := 0
				r := NewReader(pr, 1<<20)
				for {
					line, err := r.ReadLine()
					if err != nil {
						break
					}
					if len(line) != tc.size {
						t.Errorf("line of %d bytes", len(line))
					}
					n++
				}
				got <- n
			}()
			wg.Wait()
			w.Close()
			pw.Close()
			if n := <-got; n != tc.lines {
				t.Errorf("%d lines arrived, want %d", n, tc.lines)
			}
		})
	}
}

// TestResponseEnvelope: the envelope written around a marshalled result is byte for byte what
// marshalling the whole message gives, for every kind of id.
func TestResponseEnvelope(t *testing.T) {
	results := []any{
		map[string]any{"content": []any{map[string]any{"type": "text", "text": "<a & b>\n\u2028"}}, "isError": false},
		struct {
			N int `json:"n"`
		}{3},
		[]int{1, 2},
		"s",
	}
	ids := []string{``, `1`, `-7`, `0`, `"abc"`, `"a<b"`, `"a\"b"`, `"é"`, `"a\u0041"`, `""`, `1.5`, `1e3`}
	for _, id := range ids {
		for _, res := range results {
			got, err := Response(json.RawMessage(id), res)
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := json.Marshal(res)
			var idRaw json.RawMessage
			if id != "" {
				idRaw = json.RawMessage(id)
			}
			want, err := json.Marshal(&Message{JSONRPC: Version, ID: idRaw, Result: raw})
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("id %s result %v:\n got %s\nwant %s", id, res, got, want)
			}
		}
	}
}
