package builtins

import (
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDiffMatchesGNU(t *testing.T) {
	var cases []gnuCase
	for _, argv := range [][]string{
		{"diff", "a.txt", "a.txt"}, {"diff", "a.txt", "dup.txt"}, {"diff", "-u", "a.txt", "dup.txt"}, {"diff", "-q", "a.txt", "dup.txt"},
		{"diff", "a.txt", "version.txt"}, {"diff", "-U", "1", "a.txt", "dup.txt"}, {"diff", "-U0", "words.txt", "a.txt"},
		{"diff", "nonl.txt", "a.txt"}, {"diff", "-u", "nonl.txt", "a.txt"}, {"diff", "a.txt", "nofile"}, {"diff", "-i", "dup.txt", "dup.txt"},
		{"diff", "-s", "a.txt", "a.txt"}, {"diff", "-u", "--label", "old", "--label", "new", "csv.txt", "a.txt"}, {"diff", "a.txt", "-"},
		{"diff", "-w", "words.txt", "words.txt"}, {"diff", "csv.txt", "sub"}, {"diff", "-u", "--label=x", "--label=y", "-", "a.txt"},
	} {
		cases = append(cases, gnuCase{"banana\napple\nkiwi\n", argv})
	}
	compareGNU(t, cases)
}

// TestDiffRandomAgainstGNU diffs random edits of a file and checks the hunks apply back.
func TestDiffRandomAgainstGNU(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for round := 0; round < 30; round++ {
		var a, b []string
		for i := 0; i < 40; i++ {
			a = append(a, string(rune('a'+rng.Intn(6))))
		}
		for _, l := range a {
			switch rng.Intn(6) {
			case 0:
			case 1:
				b = append(b, l, "new")
			case 2:
				b = append(b, "x"+l)
			default:
				b = append(b, l)
			}
		}
		te := fixture(t)
		os.WriteFile(filepath.Join(te.dir, "l"), []byte(strings.Join(a, "\n")+"\n"), 0o644)
		os.WriteFile(filepath.Join(te.dir, "r"), []byte(strings.Join(b, "\n")+"\n"), 0o644)
		want, wantRC, ok := gnu(t, te.dir, "", "diff", "l", "r")
		if !ok {
			t.Skip("no diff")
		}
		got, _, rc := te.run(t, "", "diff", "l", "r")
		if rc != wantRC || countEdits(got) != countEdits(want) {
			t.Errorf("round %d: %d edited lines (rc %d), GNU %d (rc %d)\n%s\n--- GNU:\n%s", round, countEdits(got), rc, countEdits(want), wantRC, got, want)
		}
	}
}

// countEdits counts < and > lines: both diffs must be minimal, so the counts agree.
func countEdits(d string) int {
	n := 0
	for _, l := range strings.Split(d, "\n") {
		if strings.HasPrefix(l, "< ") || strings.HasPrefix(l, "> ") {
			n++
		}
	}
	return n
}

func TestFile(t *testing.T) {
	te := fixture(t)
	samples := map[string]string{
		"img.png":   "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x02\x00\x00\x00\x03\x08\x06\x00\x00\x00",
		"img.jpg":   "\xff\xd8\xff\xe0\x00\x10JFIF",
		"img.gif":   "GIF89a\x01\x00\x02\x00\x80\x00\x00",
		"doc.pdf":   "%PDF-1.7\n%...",
		"z.gz":      "\x1f\x8b\x08\x00\x00\x00\x00\x00",
		"a.zip":     "PK\x03\x04\x14\x00",
		"bin.elf":   "\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x3e\x00",
		"run.sh":    "#!/bin/bash\necho hi\n",
		"run.py":    "#!/usr/bin/env python3\nprint(1)\n",
		"data.json": "{\"a\": [1, 2]}\n",
		"u.txt":     "héllo\n",
		"crlf.txt":  "a\r\nb\r\n",
		"raw.bin":   "\x00\x01\x02\x03",
		"empty":     "",
	}
	for name, body := range samples {
		os.WriteFile(filepath.Join(te.dir, name), []byte(body), 0o644)
	}
	for _, tc := range []struct {
		argv []string
		want string
	}{
		{[]string{"file", "img.png"}, "img.png: PNG image data, 2 x 3\n"},
		{[]string{"file", "-b", "--mime-type", "img.png", "img.jpg", "img.gif", "doc.pdf", "z.gz", "a.zip", "bin.elf"},
			"image/png\nimage/jpeg\nimage/gif\napplication/pdf\napplication/gzip\napplication/zip\napplication/x-executable\n"},
		{[]string{"file", "--mime-type", "run.sh", "run.py", "data.json", "a.txt", "raw.bin", "empty", "sub"},
			"run.sh: text/x-shellscript\nrun.py: text/x-script.python\ndata.json: application/json\na.txt: text/plain\nraw.bin: application/octet-stream\nempty: inode/x-empty\nsub: inode/directory\n"},
		{[]string{"file", "-b", "run.sh", "a.txt", "u.txt", "crlf.txt", "nonl.txt", "data.json", "doc.pdf", "bin.elf"},
			"Bourne-Again shell script, ASCII text executable\nASCII text\nUnicode text, UTF-8 text\nASCII text, with CRLF line terminators\nASCII text\nJSON text data\nPDF document, version 1.7\nELF 64-bit LSB executable\n"},
		{[]string{"file", "-i", "a.txt", "u.txt"}, "a.txt: text/plain; charset=us-ascii\nu.txt: text/plain; charset=utf-8\n"},
		{[]string{"file", "/etc/passwd"}, "/etc/passwd: cannot open `/etc/passwd' (No such file or directory)\n"},
	} {
		if out, errOut, _ := te.run(t, "", tc.argv...); out != tc.want {
			t.Errorf("%q:\n got %q\nwant %q (%s)", tc.argv, out, tc.want, errOut)
		}
	}
}
