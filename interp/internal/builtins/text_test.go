package builtins

import (
	"context"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestTextMatchesGNU(t *testing.T) {
	in := "hello apple\npppp 123\n\nzz top  \n"
	var cases []gnuCase
	for _, argv := range [][]string{
		{"head", "-n", "2", "a.txt"}, {"head", "-3", "a.txt"}, {"head", "-c", "5", "a.txt"}, {"head", "-n", "-2", "a.txt"},
		{"head", "-c", "-3", "a.txt"}, {"head", "a.txt", "csv.txt"}, {"head", "-q", "-n1", "a.txt", "csv.txt"}, {"head", "-n1", "nofile", "a.txt"},
		{"head", "-n", "1"}, {"head", "-n", "x"}, {"head", "nonl.txt"}, {"head", "-c", "1K", "a.txt"},
		{"tail", "-n", "2", "a.txt"}, {"tail", "-n", "+5", "a.txt"}, {"tail", "-2", "a.txt"}, {"tail", "-c", "4", "a.txt"},
		{"tail", "-c", "+40", "a.txt"}, {"tail", "-n", "1", "a.txt", "csv.txt"}, {"tail", "-n", "1", "nonl.txt"}, {"tail", "-n", "0", "a.txt"},
		{"tail", "-n", "+1"}, {"tail"}, {"tail", "+3", "a.txt"},
		{"wc", "-l", "a.txt"}, {"wc", "a.txt"}, {"wc", "-w", "a.txt", "csv.txt"}, {"wc"}, {"wc", "-l"}, {"wc", "-c", "a.txt", "-"},
		{"wc", "-lwc", "words.txt"}, {"wc", "-L", "words.txt"}, {"wc", "nonl.txt"}, {"wc", "nofile", "a.txt"}, {"wc", "-m", "a.txt"},
		{"sort", "a.txt"}, {"sort", "-r", "a.txt"}, {"sort", "-u", "a.txt"}, {"sort", "-n", "a.txt"}, {"sort", "-n", "nums.txt"},
		{"sort", "-h", "nums.txt"}, {"sort", "-g", "nums.txt"}, {"sort", "-t", ",", "-k", "2", "-n", "csv.txt"}, {"sort", "-V", "version.txt"},
		{"sort", "-t,", "-k3,3", "csv.txt"}, {"sort", "-k2", "a.txt"}, {"sort", "-k2,2", "-k1,1r", "a.txt"}, {"sort", "-f", "dup.txt"},
		{"sort", "-fu", "dup.txt"}, {"sort", "-rn", "nums.txt"}, {"sort", "-k1.2", "a.txt"}, {"sort", "-b", "words.txt"}, {"sort", "words.txt"},
		{"sort", "-s", "-k1,1", "dup.txt"}, {"sort", "-c", "a.txt"}, {"sort", "-c", "version.txt"}, {"sort", "-d", "words.txt"},
		{"sort", "-t", "\t", "-k2", "tab.tsv"}, {"sort", "a.txt", "csv.txt"}, {"sort", "-nk2"}, {"sort", "-z"}, {"sort", "nofile"},
		{"uniq", "-c", "a.txt"}, {"uniq", "dup.txt"}, {"uniq", "-d", "dup.txt"}, {"uniq", "-u", "dup.txt"}, {"uniq", "-i", "dup.txt"},
		{"uniq", "-ic", "dup.txt"}, {"uniq", "-D", "dup.txt"}, {"uniq", "-f", "1", "words.txt"}, {"uniq", "-s", "1", "dup.txt"},
		{"cut", "-d", ",", "-f", "1,3", "csv.txt"}, {"cut", "-c", "1-3", "a.txt"}, {"cut", "-f", "2", "tab.tsv"}, {"cut", "-sf", "2", "tab.tsv"},
		{"cut", "-d,", "-f2-", "csv.txt"}, {"cut", "-d,", "-f-2", "csv.txt"}, {"cut", "-b", "2,4-", "a.txt"}, {"cut", "-c", "3-1", "a.txt"},
		{"cut", "-d,", "--complement", "-f2", "csv.txt"}, {"cut", "-d,", "-f1,3", "--output-delimiter=|", "csv.txt"}, {"cut", "-f1"},
		{"cut", "-d", " ", "-f", "2"}, {"cut", "a.txt"}, {"cut", "-d", "ab", "-f1", "a.txt"},
		{"cut", "-c", "2-3", "utf8.txt"}, {"cut", "-c", "1,3", "utf8.txt"}, {"cut", "-d", "é", "-f1", "utf8.txt"}, {"cut", "-d", "", "-f1", "utf8.txt"},
		{"tr", "a-z", "A-Z"}, {"tr", "-d", "a"}, {"tr", "-s", "p"}, {"tr", "-cd", "[:digit:]\n"}, {"tr", "[:lower:]", "[:upper:]"},
		{"tr", "-s", "[:space:]", " "}, {"tr", "-c", "a-z\n", "_"}, {"tr", "abc", "x"}, {"tr", "-t", "abc", "x"}, {"tr", "lo", "01"},
		{"tr", "-ds", "a", "p"}, {"tr", "\\n", ","}, {"tr", "a-c", "[x*]"}, {"tr", "-d", "[:punct:]"},
		{"tr", "a"}, {"tr", "z-a", "x"},
		{"tac", "a.txt"}, {"tac", "nonl.txt"}, {"rev", "a.txt"}, {"rev", "nonl.txt"},
		{"nl", "a.txt"}, {"nl", "words.txt"}, {"nl", "-b", "a", "words.txt"}, {"nl", "-n", "ln", "-w", "3", "-s", ": ", "a.txt"},
		{"nl", "-n", "rz", "-v", "5", "-i", "2", "a.txt"}, {"nl", "-w", "0", "a.txt"},
		{"paste", "a.txt", "csv.txt"}, {"paste", "-d,", "a.txt", "version.txt"}, {"paste", "-s", "a.txt"}, {"paste", "-s", "-d,:", "a.txt"},
		{"paste", "-", "-"}, {"paste", "-d", "\\t\\n", "-s", "a.txt"},
		{"comm", "dup.txt", "a.txt"}, {"comm", "-12", "version.txt", "version.txt"}, {"comm", "-3", "a.txt", "csv.txt"},
		{"comm", "--check-order", "dup.txt", "a.txt"}, {"comm", "--nocheck-order", "a.txt", "dup.txt"}, {"comm", "--total", "a.txt", "a.txt"},
		{"tee"}, {"head", "-n", "2", "-v", "a.txt"},
	} {
		cases = append(cases, gnuCase{in, argv})
	}
	compareGNU(t, cases)
}

func TestTeeWritesFiles(t *testing.T) {
	te := fixture(t)
	te.run(t, "one\n", "tee", "t1", "t2")
	te.run(t, "two\n", "tee", "-a", "t1")
	out, _, _ := te.run(t, "", "cat", "t1", "t2")
	if out != "one\ntwo\none\n" {
		t.Errorf("tee files hold %q", out)
	}
	if _, errOut, rc := te.run(t, "x", "tee", "/etc/tee-escape"); rc == 0 || !strings.Contains(errOut, "Permission denied") && !strings.Contains(errOut, "No such file") {
		t.Errorf("tee outside the root: rc %d %q", rc, errOut)
	}
}

// generator yields n bytes of 80-column lines without holding them.
type generator struct{ left int64 }

func (g *generator) Read(p []byte) (int, error) {
	if g.left <= 0 {
		return 0, io.EOF
	}
	n := min(int64(len(p)), g.left)
	for i := int64(0); i < n; i++ {
		p[i] = 'a' + byte(i%26)
		if i%80 == 79 {
			p[i] = '\n'
		}
	}
	g.left -= n
	return int(n), nil
}

// endless never ends; only the context stops a reader of it.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
		if i%80 == 79 {
			p[i] = '\n'
		}
	}
	return len(p), nil
}

// counter discards output, counting it.
type counter struct{ n int64 }

func (c *counter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

func TestStreamingHugeInput(t *testing.T) {
	const size = 50 << 20
	for _, tc := range []struct {
		argv    []string
		wantOut int64 // -1: don't check
	}{
		{[]string{"wc", "-l"}, -1}, {[]string{"grep", "-c", "a"}, -1}, {[]string{"cut", "-c", "1-5"}, -1},
		{[]string{"tr", "a-z", "A-Z"}, size}, {[]string{"head", "-n", "3"}, 3 * 80}, {[]string{"tail", "-n", "2"}, 2 * 80},
		{[]string{"sed", "-n", "$p"}, 80}, {[]string{"awk", "END{print NR}"}, -1}, {[]string{"uniq", "-c"}, -1},
		{[]string{"sha256sum"}, -1}, {[]string{"gzip", "-c"}, -1},
	} {
		te := fixture(t)
		te.Stdin = &generator{left: size}
		var out counter
		te.Stdout = &out
		f, _ := Lookup(tc.argv[0])
		start := time.Now()
		runtime.GC()
		peak := make(chan uint64)
		stop := make(chan struct{})
		go samplePeakHeap(stop, peak)
		if rc := f(context.Background(), te.Env, tc.argv); rc != 0 {
			t.Errorf("%v: rc %d: %s", tc.argv, rc, te.errb.String())
		}
		close(stop)
		if p := <-peak; p > 40<<20 {
			t.Errorf("%v held %d MB of heap streaming 50 MB", tc.argv, p>>20)
		}
		if tc.wantOut >= 0 && out.n != tc.wantOut {
			t.Errorf("%v wrote %d bytes, want %d", tc.argv, out.n, tc.wantOut)
		}
		if d := time.Since(start); d > hung {
			t.Errorf("%v took %v on 50 MB", tc.argv, d)
		}
	}
}

// samplePeakHeap reports the largest heap in use until stop closes.
func samplePeakHeap(stop chan struct{}, peak chan uint64) {
	var ms runtime.MemStats
	var top uint64
	for {
		runtime.ReadMemStats(&ms)
		top = max(top, ms.HeapInuse)
		select {
		case <-stop:
			peak <- top
			return
		case <-time.After(2 * time.Millisecond):
		}
	}
}

func TestCancellationStopsReaders(t *testing.T) {
	for _, argv := range [][]string{
		{"cat"}, {"grep", "zzz"}, {"grep", "-c", "a"}, {"wc", "-l"}, {"tr", "a", "b"}, {"cut", "-c1"}, {"head", "-n", "-1"},
		{"tail", "-n", "1"}, {"sed", "s/a/b/"}, {"awk", "{n++}"}, {"sort"}, {"uniq"}, {"tee"}, {"yes"}, {"base64"},
		{"sha256sum"}, {"md5sum"}, {"gzip", "-c"}, {"tac"}, {"rev"}, {"nl"}, {"paste", "-"}, {"xargs", "true"}, {"od", "-c"},
	} {
		te := fixture(t)
		te.Stdin = endless{}
		te.Stdout = &counter{}
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		f, ok := Lookup(argv[0])
		if !ok {
			t.Errorf("no %s", argv[0])
			cancel()
			continue
		}
		done := make(chan int, 1)
		start := time.Now()
		go func() { done <- f(ctx, te.Env, argv) }()
		select {
		case rc := <-done:
			if rc == 0 {
				t.Errorf("%v: rc 0 after cancellation", argv)
			}
			if d := time.Since(start); d > hung {
				t.Errorf("%v took %v to stop", argv, d)
			}
		case <-time.After(hung):
			t.Errorf("%v did not stop when its context ended", argv)
		}
		cancel()
	}
}
