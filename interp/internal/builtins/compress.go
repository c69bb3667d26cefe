package builtins

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"
)

func init() {
	register("gzip", gzipUtil)
	register("gunzip", func(ctx context.Context, env *Env, argv []string) int {
		return gzipUtil(ctx, env, append([]string{"gzip", "-d"}, argv[1:]...))
	})
	register("zcat", func(ctx context.Context, env *Env, argv []string) int {
		return gzipUtil(ctx, env, append([]string{"gzip", "-dc"}, argv[1:]...))
	})
}

// maxInflate caps decompressed output: a small archive must not fill memory or disk.
const maxInflate = 256 << 20

var errInflateLimit = errors.New("decompressed data exceeds the sandbox limit (256 MiB)")

var gzipSpec = optSpec{short: "cdkfqntvS:123456789", long: []string{"stdout:c", "to-stdout:c", "decompress:d", "uncompress:d",
	"keep:k", "force:f", "quiet:q", "no-name:n", "test:t", "verbose:v", "suffix:S", "fast:1", "best:9"}, permute: true}

type gzipJob struct {
	ctx                                   context.Context
	env                                   *Env
	decompress, stdout, keep, force, test bool
	level                                 int
	suffix                                string
}

func gzipUtil(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "gzip", 1, gzipSpec, argv[1:])
	if !ok {
		return st
	}
	j := &gzipJob{ctx: ctx, env: env, decompress: fl.has("d"), stdout: fl.has("c"), keep: fl.has("k"),
		force: fl.has("f"), test: fl.has("t"), level: gzip.DefaultCompression, suffix: ".gz"}
	for _, o := range fl.opts {
		if len(o.name) == 1 && o.name[0] >= '1' && o.name[0] <= '9' {
			j.level, _ = strconv.Atoi(o.name)
		}
	}
	if s, ok := fl.val("S"); ok && s != "" {
		j.suffix = s
	}
	if len(fl.operands) == 0 {
		fl.operands = []string{"-"}
	}
	status := 0
	for _, f := range fl.operands {
		if ctx.Err() != nil {
			return 130
		}
		if err := j.one(f); err != nil {
			if ctx.Err() != nil {
				return 130
			}
			status = errorf(env, 1, "gzip", "%s: %s", f, describe(err))
		}
	}
	return status
}

// one handles a file: to stdout (for "-" and -c), else to the file with the suffix added or
// removed, deleting the input unless -k.
func (j *gzipJob) one(name string) error {
	in, err := openInput(j.env, name)
	if err != nil {
		return err
	}
	defer in.Close()
	r := io.Reader(ctxRead(j.ctx, in))
	if name == "-" || j.stdout || j.test {
		out := j.env.Stdout
		if j.test {
			out = io.Discard
		}
		return j.transform(r, out)
	}
	target := name + j.suffix
	if j.decompress {
		base, ok := strings.CutSuffix(name, j.suffix)
		if !ok && strings.HasSuffix(name, ".tgz") {
			base, ok = strings.TrimSuffix(name, ".tgz")+".tar", true
		}
		if !ok || path.Base(base) == "" {
			return fmt.Errorf("unknown suffix -- ignored")
		}
		target = base
	} else if strings.HasSuffix(name, j.suffix) {
		return fmt.Errorf("already has %s suffix -- unchanged", j.suffix)
	}
	tp := j.env.Abs(target)
	if _, err := j.env.FS.Lstat(tp); err == nil && !j.force {
		return fmt.Errorf("%s already exists; not overwritten", target)
	}
	fi, err := j.env.FS.Stat(j.env.Abs(name))
	if err != nil {
		return err
	}
	out, err := j.env.FS.Open(tp, writeFlags(false), fi.Mode().Perm())
	if err != nil {
		return err
	}
	err = j.transform(r, out)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		j.env.FS.Remove(tp)
		return err
	}
	j.env.FS.Chtimes(tp, accessTime(fi), fi.ModTime())
	if !j.keep {
		return j.env.FS.Remove(j.env.Abs(name))
	}
	return nil
}

func (j *gzipJob) transform(r io.Reader, w io.Writer) error {
	if !j.decompress && !j.test {
		zw, err := gzip.NewWriterLevel(w, j.level)
		if err != nil {
			return err
		}
		if _, err := io.Copy(zw, r); err != nil {
			return err
		}
		return zw.Close()
	}
	zr, err := gzip.NewReader(r)
	if err != nil {
		return fmt.Errorf("not in gzip format")
	}
	defer zr.Close()
	n, err := io.Copy(w, io.LimitReader(zr, maxInflate))
	if err != nil {
		return err
	}
	if n == maxInflate {
		if k, _ := zr.Read(make([]byte, 1)); k > 0 {
			return errInflateLimit
		}
	}
	return nil
}
