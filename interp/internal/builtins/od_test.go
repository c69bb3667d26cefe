package builtins

import (
	"strings"
	"testing"
)

func TestOdMatchesGNU(t *testing.T) {
	var all strings.Builder
	for i := range 256 {
		all.WriteByte(byte(i))
	}
	bytes256 := all.String()
	esc := "\x00\a\b\f\n\r\t\v\x7f\x80\xff A~"
	rep := strings.Repeat("abcdefghijklmnop", 5) + "xyz"
	floats := "\x00\x00\x80\x3f\x00\x00\xc0\x7f\x00\x00\x80\xff\xcd\xcc\xcc\x3d" +
		"\x00\x00\x00\x00\x00\x00\xf0\x3f\x9a\x99\x99\x99\x99\x99\xb9\x3f\x01\x00\x00\x00\x00\x00\x00\x00" +
		"\x00\x00\x00\x00\x00\x00\xf0\x7f\x00\x00\x00\x00\x80\x84\x2e\x41"
	cases := []gnuCase{
		{bytes256, []string{"od"}},
		{bytes256, []string{"od", "-c"}},
		{bytes256, []string{"od", "-a"}},
		{bytes256, []string{"od", "-b"}},
		{bytes256, []string{"od", "-An", "-tx1"}},
		{bytes256, []string{"od", "-t", "x1z"}},
		{bytes256, []string{"od", "-t", "d1", "-t", "u1"}},
		{bytes256, []string{"od", "-t", "d2"}},
		{bytes256, []string{"od", "-t", "u2"}},
		{bytes256, []string{"od", "-t", "o4"}},
		{bytes256, []string{"od", "-t", "d4", "-t", "x4"}},
		{bytes256, []string{"od", "-t", "d8", "-t", "u8"}},
		{bytes256, []string{"od", "-t", "o8", "-t", "x8"}},
		{bytes256, []string{"od", "-t", "dC", "-t", "xS"}},
		{bytes256, []string{"od", "-t", "uI", "-t", "oL"}},
		{bytes256, []string{"od", "-d"}},
		{bytes256, []string{"od", "-o"}},
		{bytes256, []string{"od", "-s"}},
		{bytes256, []string{"od", "-x"}},
		{bytes256, []string{"od", "-i"}},
		{bytes256, []string{"od", "-l"}},
		{bytes256, []string{"od", "-Ad", "-tx1"}},
		{bytes256, []string{"od", "-Ax", "-tx1"}},
		{bytes256, []string{"od", "-Ao", "-c"}},
		{bytes256, []string{"od", "-tcx1"}},
		{bytes256, []string{"od", "-c", "-t", "x2", "-t", "d1"}},
		{"", []string{"od"}},
		{"", []string{"od", "-An", "-c"}},
		{"", []string{"od", "-Ax", "-tx4"}},
		{"a", []string{"od", "-t", "x2"}},
		{"abc", []string{"od", "-t", "x2"}},
		{"abcde", []string{"od", "-t", "x4", "-c"}},
		{"abcdefghijk", []string{"od", "-t", "d8"}},
		{"abcdefghijk", []string{"od", "-t", "x8z"}},
		{"abc", []string{"od", "-t", "x2z", "-c"}},
		{"\x01\x02\x03\x04", []string{"od", "-An", "-t", "x2"}},
		{"\xff", []string{"od", "-An", "-t", "x1"}},
		{"\xff\n", []string{"od", "-A", "n", "-t", "x1"}},
		{esc, []string{"od", "-c"}},
		{esc, []string{"od", "-An", "-c"}},
		{esc, []string{"od", "-t", "a"}},
		{rep, []string{"od", "-c"}},
		{rep, []string{"od", "-v", "-c"}},
		{strings.Repeat("\x00", 100), []string{"od", "-tx1"}},
		{strings.Repeat("\x00", 64), []string{"od"}},
		{strings.Repeat("ab", 40) + "abX" + strings.Repeat("ab", 40), []string{"od", "-tx1", "-w8"}},
		{bytes256, []string{"od", "-N", "10", "-tx1"}},
		{bytes256, []string{"od", "-j", "250", "-c"}},
		{bytes256, []string{"od", "-j7", "-N9", "-tx1"}},
		{bytes256, []string{"od", "-j", "0x10", "-N", "020", "-Ax", "-tx1"}},
		{bytes256, []string{"od", "-j", "1b", "-tx1"}},
		{bytes256, []string{"od", "-N0", "-c"}},
		{bytes256, []string{"od", "-w8", "-tx1"}},
		{bytes256, []string{"od", "-w", "-tx1"}},
		{bytes256, []string{"od", "-w4", "-c", "-tx2"}},
		{bytes256, []string{"od", "--width=6", "-tx1"}},
		{bytes256, []string{"od", "-w12", "-tx4"}},
		{bytes256[:40], []string{"od", "-w3", "-tx2"}},
		{floats, []string{"od", "-t", "f4"}},
		{floats, []string{"od", "-t", "f8"}},
		{floats, []string{"od", "-t", "fF", "-t", "fD", "-tx1"}},
		{floats, []string{"od", "-f"}},
		{"hello world\n", []string{"od", "-c", "-", "a.txt"}},
		{"", []string{"od", "-c", "a.txt", "nonl.txt"}},
		{"", []string{"od", "-tx1", "a.txt", "missing", "nonl.txt"}},
		{"abc", []string{"od", "-j", "5", "-c"}},
		{"abc", []string{"od", "-j", "3", "-c"}},
		{"", []string{"od", "-q"}},
		{"", []string{"od", "-t", "q"}},
		{"", []string{"od", "-t", "d3"}},
		{"", []string{"od", "-A", "z"}},
		{"", []string{"od", "--read-bytes=x"}},
		{"", []string{"od", "-j", "40", "-N", "20", "-c", "a.txt", "nonl.txt"}},
		{"", []string{"od", "-N", "3", "-c", "a.txt", "nonl.txt"}},
		{"", []string{"od", "-w0", "-c"}},
		{"", []string{"od", "-t", "x", "-t", "d", "-t", "u", "-t", "o", "a.txt"}},
		{"", []string{"od", "-t", "f", "a.txt"}},
		{"", []string{"od", "-t", "xz", "-t", "az", "a.txt"}},
		{"", []string{"od", "-j", "1k", "a.txt"}},
		{"xy", []string{"od", "-t", "d1u2", "-w2"}},
		{"", []string{"od", "-t", "c1"}},
		{"", []string{"od", "-t", "x1C"}},
		{"", []string{"od", "-w", "7", "-c"}},
		{"ab\n", []string{"od", "-w0", "-tx2"}},
		{"", []string{"od", "-c", "missing1", "missing2"}},
		{"", []string{"od", "-c", "missing1", "a.txt"}},
		{"", []string{"od", "-c", "a.txt", "missing1"}},
		{"", []string{"od", "-j", "300", "a.txt", "missing1"}},
		{"abc", []string{"od", "-j", "3"}},
	}
	compareGNU(t, cases)
}

func TestOdRefusesLongDouble(t *testing.T) {
	te := fixture(t)
	for _, ty := range []string{"fL", "f16"} {
		out, errs, rc := te.run(t, "0123456789abcdef", "od", "-t", ty)
		if rc != 1 || out != "" || !strings.Contains(errs, "long double") {
			t.Errorf("od -t %s: rc %d, out %q, err %q", ty, rc, out, errs)
		}
	}
	if _, errs, rc := te.run(t, "", "od", "+1"); rc != 1 || !strings.Contains(errs, "traditional offset") {
		t.Errorf("od +1: rc %d, err %q", rc, errs)
	}
}
