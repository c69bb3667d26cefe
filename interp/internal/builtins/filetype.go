package builtins

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"unicode/utf8"
)

func init() { register("file", fileUtil) }

var fileSpec = optSpec{short: "bLhiz", long: []string{"brief:b", "dereference:L", "no-dereference:h", "mime-type", "mime:i", "uncompress:z"}, permute: true}

// magic is what file reports about some bytes: a description and a MIME type.
type magic struct {
	desc, mime, charset string
}

// fileUtil identifies files by their first bytes (a small built-in magic table, not
// libmagic's).
func fileUtil(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "file", 1, fileSpec, argv[1:])
	if !ok {
		return st
	}
	if len(fl.operands) == 0 {
		return errorf(env, 1, "file", "Usage: file [-bLi] [--mime-type] FILE...")
	}
	for _, name := range fl.operands {
		m := identify(ctx, env, name, fl.has("L"))
		var out string
		switch {
		case fl.has("mime-type"):
			out = m.mime
		case fl.has("i"):
			out = m.mime
			if m.charset != "" {
				out += "; charset=" + m.charset
			}
		default:
			out = m.desc
		}
		if m.mime == "" {
			out = m.desc
		}
		if !fl.has("b") {
			out = name + ": " + out
		}
		fmt.Fprintln(env.Stdout, out)
	}
	return 0 // as GNU file: problems are reported in the output
}

func identify(ctx context.Context, env *Env, name string, follow bool) magic {
	p := env.Abs(name)
	get := env.FS.Lstat
	if follow {
		get = env.FS.Stat
	}
	fi, err := get(p)
	if name == "-" {
		fi, err = nil, nil
	}
	if err != nil {
		return magic{desc: fmt.Sprintf("cannot open `%s' (%s)", name, describe(err))}
	}
	if fi != nil {
		switch {
		case fi.IsDir():
			return magic{"directory", "inode/directory", "binary"}
		case fi.Mode()&fs.ModeSymlink != 0:
			t, _ := env.FS.Readlink(p)
			return magic{"symbolic link to " + t, "inode/symlink", "binary"}
		case fi.Mode()&fs.ModeNamedPipe != 0:
			return magic{"fifo (named pipe)", "inode/fifo", "binary"}
		}
	}
	r, err := openInput(env, name)
	if err != nil {
		return magic{desc: fmt.Sprintf("cannot open `%s' (%s)", name, describe(err))}
	}
	defer r.Close()
	head := make([]byte, 8192)
	n, _ := io.ReadFull(ctxRead(ctx, r), head)
	return sniff(head[:n], n == len(head))
}

// sniff classifies content from its first bytes; truncated says more bytes follow.
func sniff(b []byte, truncated bool) magic {
	switch {
	case len(b) == 0:
		return magic{"empty", "inode/x-empty", "binary"}
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		desc := "PNG image data"
		if len(b) >= 24 {
			desc += fmt.Sprintf(", %d x %d", binary.BigEndian.Uint32(b[16:]), binary.BigEndian.Uint32(b[20:]))
		}
		return magic{desc, "image/png", "binary"}
	case bytes.HasPrefix(b, []byte("\xff\xd8\xff")):
		return magic{"JPEG image data", "image/jpeg", "binary"}
	case bytes.HasPrefix(b, []byte("GIF87a")) || bytes.HasPrefix(b, []byte("GIF89a")):
		desc := "GIF image data, version " + string(b[3:6])
		if len(b) >= 10 {
			desc += fmt.Sprintf(", %d x %d", binary.LittleEndian.Uint16(b[6:]), binary.LittleEndian.Uint16(b[8:]))
		}
		return magic{desc, "image/gif", "binary"}
	case bytes.HasPrefix(b, []byte("%PDF-")):
		v := strings.TrimSpace(strings.SplitN(string(b[5:min(len(b), 16)]), "\n", 2)[0])
		return magic{"PDF document, version " + strings.TrimRight(v, "\r"), "application/pdf", "binary"}
	case bytes.HasPrefix(b, []byte("\x1f\x8b")):
		return magic{"gzip compressed data", "application/gzip", "binary"}
	case bytes.HasPrefix(b, []byte("PK\x03\x04")) || bytes.HasPrefix(b, []byte("PK\x05\x06")):
		return magic{"Zip archive data", "application/zip", "binary"}
	case bytes.HasPrefix(b, []byte("\x7fELF")):
		return sniffELF(b)
	case bytes.HasPrefix(b, []byte("BZh")):
		return magic{"bzip2 compressed data", "application/x-bzip2", "binary"}
	case bytes.HasPrefix(b, []byte("\xfd7zXZ\x00")):
		return magic{"XZ compressed data", "application/x-xz", "binary"}
	case len(b) > 262 && string(b[257:262]) == "ustar":
		return magic{"POSIX tar archive", "application/x-tar", "binary"}
	case bytes.HasPrefix(b, []byte("\x00asm")):
		return magic{"WebAssembly (wasm) binary module", "application/wasm", "binary"}
	}
	return sniffText(b, truncated)
}

func sniffELF(b []byte) magic {
	bits := "32-bit"
	if len(b) > 4 && b[4] == 2 {
		bits = "64-bit"
	}
	order := "LSB"
	if len(b) > 5 && b[5] == 2 {
		order = "MSB"
	}
	kind, mime := "executable", "application/x-executable"
	if len(b) > 17 {
		switch binary.LittleEndian.Uint16(b[16:]) {
		case 1:
			kind, mime = "relocatable", "application/x-object"
		case 3:
			kind, mime = "pie executable", "application/x-pie-executable"
		case 4:
			kind, mime = "core file", "application/x-coredump"
		}
	}
	return magic{fmt.Sprintf("ELF %s %s %s", bits, order, kind), mime, "binary"}
}

func sniffText(b []byte, truncated bool) magic {
	if bytes.IndexByte(b, 0) >= 0 {
		return magic{"data", "application/octet-stream", "binary"}
	}
	check := b
	if truncated {
		// A multibyte character may be cut at the end of the sample.
		for i := 0; i < utf8.UTFMax && len(check) > 0 && !utf8.Valid(check); i++ {
			check = check[:len(check)-1]
		}
	}
	charset, kind := "us-ascii", "ASCII text"
	for _, c := range b {
		if c >= 0x80 {
			charset, kind = "utf-8", "Unicode text, UTF-8 text"
			break
		}
	}
	if !utf8.Valid(check) {
		charset, kind = "unknown-8bit", "ISO-8859 text"
	}
	for _, c := range b {
		if c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' && c != '\v' && c != 0x1b && c != '\b' {
			return magic{"data", "application/octet-stream", "binary"}
		}
	}
	suffix := ""
	switch {
	case bytes.Contains(b, []byte("\r\n")):
		suffix = ", with CRLF line terminators"
	case !bytes.ContainsAny(b, "\n\r"):
		suffix = ", with no line terminators"
	}
	if bytes.HasPrefix(b, []byte("#!")) {
		desc, mime := scriptKind(b)
		return magic{desc + ", " + kind + " executable" + suffix, mime, charset}
	}
	trimmed := bytes.TrimSpace(b)
	if !truncated && len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') && json.Valid(trimmed) {
		return magic{"JSON text data", "application/json", charset}
	}
	if bytes.HasPrefix(trimmed, []byte("<?xml")) {
		return magic{"XML 1.0 document, " + kind + suffix, "text/xml", charset}
	}
	if low := bytes.ToLower(trimmed[:min(len(trimmed), 64)]); bytes.HasPrefix(low, []byte("<!doctype html")) || bytes.HasPrefix(low, []byte("<html")) {
		return magic{"HTML document, " + kind + suffix, "text/html", charset}
	}
	return magic{kind + suffix, "text/plain", charset}
}

// scriptKind names the interpreter of a #! line.
func scriptKind(b []byte) (string, string) {
	line := string(b[2:])
	if i := strings.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	f := strings.Fields(line)
	if len(f) == 0 {
		return "script", "text/plain"
	}
	interp := baseOf(f[0])
	if interp == "env" && len(f) > 1 {
		interp = f[1]
	}
	switch {
	case interp == "bash":
		return "Bourne-Again shell script", "text/x-shellscript"
	case interp == "sh" || interp == "dash":
		return "POSIX shell script", "text/x-shellscript"
	case strings.HasPrefix(interp, "python"):
		return "Python script", "text/x-script.python"
	case interp == "node":
		return "Node.js script", "application/javascript"
	case strings.HasPrefix(interp, "perl"):
		return "Perl script", "text/x-perl"
	case strings.HasPrefix(interp, "ruby"):
		return "Ruby script", "text/x-ruby"
	}
	return "a " + strings.TrimSpace(line) + " script", "text/plain"
}
