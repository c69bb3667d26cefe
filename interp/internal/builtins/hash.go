package builtins

import (
	"bufio"
	"context"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"strconv"
	"strings"
)

func init() {
	register("sha256sum", hashSum("sha256sum", sha256.New))
	register("sha1sum", hashSum("sha1sum", sha1.New))
	register("md5sum", hashSum("md5sum", md5.New))
	register("sha512sum", hashSum("sha512sum", sha512.New))
	register("base64", base64Util)
}

var hashSpec = optSpec{short: "bctwz", long: []string{"binary:b", "check:c", "text:t", "warn:w", "quiet", "status", "strict", "tag", "zero:z", "ignore-missing"}, permute: true}

func hashSum(name string, newHash func() hash.Hash) Func {
	return func(ctx context.Context, env *Env, argv []string) int {
		fl, st, ok := parseFlags(env, name, 1, hashSpec, argv[1:])
		if !ok {
			return st
		}
		if fl.has("c") {
			return hashCheck(ctx, env, name, newHash, fl)
		}
		w := bufio.NewWriter(env.Stdout)
		defer w.Flush()
		mark := " "
		if fl.has("b") {
			mark = "*"
		}
		return eachInput(ctx, env, name, fl.operands, func(file string, r io.Reader) error {
			sum, err := digest(r, newHash)
			if err != nil {
				return err
			}
			if fl.has("tag") {
				fmt.Fprintf(w, "%s (%s) = %s\n", strings.ToUpper(strings.TrimSuffix(name, "sum")), file, sum)
			} else {
				fmt.Fprintf(w, "%s %s%s\n", sum, mark, file)
			}
			return nil
		})
	}
}

func digest(r io.Reader, newHash func() hash.Hash) (string, error) {
	h := newHash()
	if _, err := io.Copy(h, r); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// hashCheck verifies "SUM  FILE" lines (sha256sum -c).
func hashCheck(ctx context.Context, env *Env, name string, newHash func() hash.Hash, fl *flagSet) int {
	quiet, statusOnly := fl.has("quiet"), fl.has("status")
	bad, missing, malformed := 0, 0, 0
	w := bufio.NewWriter(env.Stdout)
	defer w.Flush()
	st := eachInput(ctx, env, name, fl.operands, func(list string, r io.Reader) error {
		lr := newLineReader(r)
		for {
			line, _, ok := lr.next()
			if !ok {
				return lr.err
			}
			sum, file, ok := strings.Cut(string(line), " ")
			if !ok || len(file) < 2 || (file[0] != ' ' && file[0] != '*') {
				malformed++
				continue
			}
			file = file[1:]
			f, err := openInput(env, file)
			if err != nil {
				if !fl.has("ignore-missing") {
					missing++
					w.Flush()
					errorf(env, 1, name, "%s: %s", file, describe(err))
					if !statusOnly {
						fmt.Fprintf(w, "%s: FAILED open or read\n", file)
					}
				}
				continue
			}
			got, err := digest(ctxRead(ctx, f), newHash)
			f.Close()
			switch {
			case err == nil && strings.EqualFold(got, sum):
				if !quiet && !statusOnly {
					fmt.Fprintf(w, "%s: OK\n", file)
				}
			default:
				bad++
				if !statusOnly {
					fmt.Fprintf(w, "%s: FAILED\n", file)
				}
			}
		}
	})
	w.Flush()
	if !statusOnly {
		if malformed > 0 {
			errorf(env, 1, name, "WARNING: %d line%s improperly formatted", malformed, plural(malformed))
		}
		if missing > 0 {
			errorf(env, 1, name, "WARNING: %d listed file%s could not be read", missing, plural(missing))
		}
		if bad > 0 {
			errorf(env, 1, name, "WARNING: %d computed checksum%s did NOT match", bad, plural(bad))
		}
	}
	if st != 0 || bad > 0 || missing > 0 || (fl.has("strict") && malformed > 0) {
		return max(st, 1)
	}
	return 0
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func base64Util(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "base64", 1, optSpec{short: "diw:", long: []string{"decode:d", "ignore-garbage:i", "wrap:w"}, permute: true}, argv[1:])
	if !ok {
		return st
	}
	wrap := 76
	if v, ok := fl.val("w"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return errorf(env, 1, "base64", "invalid wrap size: '%s'", v)
		}
		wrap = n
	}
	if len(fl.operands) > 1 {
		return errorf(env, 1, "base64", "extra operand '%s'", fl.operands[1])
	}
	return eachInput(ctx, env, "base64", fl.operands, func(_ string, r io.Reader) error {
		if fl.has("d") {
			return base64Decode(env, r, fl.has("i"))
		}
		return base64Encode(env, r, wrap)
	})
}

// base64Encode streams: input is taken in multiples of 3 bytes, output wrapped at wrap.
func base64Encode(env *Env, r io.Reader, wrap int) error {
	w := bufio.NewWriter(env.Stdout)
	col := 0
	put := func(s string) {
		for wrap > 0 && col+len(s) > wrap {
			k := wrap - col
			w.WriteString(s[:k])
			w.WriteByte('\n')
			s, col = s[k:], 0
		}
		w.WriteString(s)
		col += len(s)
	}
	buf := make([]byte, 48<<10)
	for {
		n, err := io.ReadFull(r, buf)
		if n > 0 {
			put(base64.StdEncoding.EncodeToString(buf[:n]))
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			w.Flush()
			return err
		}
	}
	if wrap > 0 && col > 0 {
		w.WriteByte('\n')
	}
	return w.Flush()
}

// base64Decode streams as GNU base64 -d decodes: newlines are skipped (and, with -i, every
// byte outside the alphabet); each group of four yields its bytes as far as it is valid, so
// the output stops where the input goes wrong, with what came before it written; a padded
// group may be followed by more groups.
func base64Decode(env *Env, r io.Reader, garbage bool) error {
	br := bufio.NewReaderSize(&base64Filter{r: r, garbage: garbage}, 64<<10)
	w := bufio.NewWriter(env.Stdout)
	defer w.Flush()
	next := func() (int, bool, error) {
		for {
			c, err := br.ReadByte()
			if err != nil {
				return 0, false, err
			}
			if c == '\n' {
				continue
			}
			return base64Value(c), true, nil
		}
	}
	bad := errors.New("invalid input")
	for {
		v0, ok, err := next()
		if !ok {
			if err == io.EOF {
				return nil
			}
			return err
		}
		v1, ok, _ := next()
		if !ok || v0 < 0 || v1 < 0 {
			return bad
		}
		w.WriteByte(byte(v0<<2 | v1>>4))
		v2, ok, _ := next()
		if !ok || v2 == -1 {
			return bad
		}
		if v2 == base64Pad {
			if v3, ok, _ := next(); !ok || v3 != base64Pad {
				return bad
			}
			continue
		}
		w.WriteByte(byte(v1<<4 | v2>>2))
		v3, ok, _ := next()
		if !ok || v3 == -1 {
			return bad
		}
		if v3 == base64Pad {
			continue
		}
		if err := w.WriteByte(byte(v2<<6 | v3)); err != nil {
			return err
		}
	}
}

// base64Pad is base64Value's answer for '='.
const base64Pad = -2

// base64Value is c's value in the standard alphabet, base64Pad for '=', -1 outside it.
func base64Value(c byte) int {
	switch {
	case c >= 'A' && c <= 'Z':
		return int(c - 'A')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 26
	case c >= '0' && c <= '9':
		return int(c-'0') + 52
	case c == '+':
		return 62
	case c == '/':
		return 63
	case c == '=':
		return base64Pad
	}
	return -1
}

type base64Filter struct {
	r       io.Reader
	garbage bool
	err     error
}

func (f *base64Filter) Read(p []byte) (int, error) {
	for {
		n, err := f.r.Read(p)
		if err != nil && err != io.EOF {
			f.err = err
		}
		k := 0
		for _, c := range p[:n] {
			switch {
			case f.garbage && !(isAlnum(c) || c == '+' || c == '/' || c == '='):
			default:
				p[k] = c
				k++
			}
		}
		if k > 0 || err != nil {
			return k, err
		}
	}
}
