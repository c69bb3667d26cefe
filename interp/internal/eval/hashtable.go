package eval

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The command hash table as bash keeps it (hashcmd.c over hashlib.c): each entry counts its
// hits, every search that finds it (running the command, type, command -v, hash -t), and
// `hash` lists the entries in bash's bucket order, which scripts see.

// hashEntry is one remembered command.
type hashEntry struct {
	path string
	hits int
	seq  uint64 // insertion order: a later entry comes first in its bucket
}

// hashBuckets is bash's FILENAME_HASH_BUCKETS; bash grows a table at twice its buckets
// (hashlib's HASH_REHASH_FACTOR), which reorders it: a listing that large is refused.
const hashBuckets = 256

// hashBucket is bash's hash_string (32-bit FNV-1) reduced to a bucket.
func hashBucket(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h *= 16777619
		h ^= uint32(s[i])
	}
	return h & (hashBuckets - 1)
}

// hashTable returns the table to write in place, copying it first when it is shared.
func (r *Runner) hashTable() map[string]hashEntry {
	if !r.hashOwned || r.hashed == nil {
		m := maps.Clone(r.hashed)
		if m == nil {
			m = map[string]hashEntry{}
		}
		r.hashed, r.hashOwned = m, true
	}
	return r.hashed
}

// hashSearch is bash's phash_search: the remembered path of name, counting a hit (none
// under set +h, which keeps the table).
func (r *Runner) hashSearch(name string) (string, bool) {
	if strings.IndexByte(name, '/') >= 0 || !r.opts.has(optHashall) {
		return "", false
	}
	if _, ok := r.hashed[name]; !ok {
		return "", false
	}
	m := r.hashTable()
	e := m[name]
	e.hits++
	m[name] = e
	if strings.HasPrefix(e.path, "/") {
		return e.path, true
	}
	// A relative path (from a relative PATH entry) is used as ./path while it names an
	// executable file. Otherwise one hashed from a "." entry (./name) is searched for again,
	// and any other is used as it is, and fails (bash's phash_search).
	p := e.path
	if !strings.HasPrefix(p, "./") {
		p = "./" + p
	}
	abs := r.absPath(p)
	if fi, err := r.c.fs.Stat(abs); err != nil || fi.IsDir() || r.c.fs.Access(abs, 1) != nil {
		if strings.HasPrefix(e.path, "./") {
			return "", false
		}
		return e.path, true
	}
	return p, true
}

// hashInsert is bash's phash_insert: an entry keeps its place when it is replaced.
func (r *Runner) hashInsert(name, path string, hits int) {
	m := r.hashTable()
	e, ok := m[name]
	if !ok {
		e.seq = r.c.hashSeq.Add(1)
	}
	e.path, e.hits = path, hits
	m[name] = e
}

func (r *Runner) hashRemove(name string) bool {
	if _, ok := r.hashed[name]; !ok {
		return false
	}
	delete(r.hashTable(), name)
	return true
}

// hashOrder lists the table's names as bash's hash_walk visits them.
func (r *Runner) hashOrder() []string {
	names := slices.Collect(maps.Keys(r.hashed))
	slices.SortFunc(names, func(a, b string) int {
		ba, bb := hashBucket(a), hashBucket(b)
		if ba != bb {
			return int(ba) - int(bb)
		}
		if r.hashed[a].seq > r.hashed[b].seq {
			return -1
		}
		return 1
	})
	return names
}

// printableName is bash's printable_filename for hash -l: quoted only when it must be.
func printableName(s string) string {
	if s == "" {
		return s
	}
	return quoteTrace(s)
}

// biHash is the hash builtin.
func biHash(r *Runner, args []string) int {
	if !r.opts.has(optHashall) {
		r.errorf("hash: hashing disabled")
		return 1
	}
	opts, names, ok := r.parseOpts("hash", args[1:], "lrp:dt", false)
	if !ok {
		return 2
	}
	var portable, reset, del, targets bool
	var setPath string
	havePath := false
	for _, o := range opts {
		switch o.c {
		case 'l':
			portable = true
		case 'r':
			reset = true
		case 'p':
			setPath, havePath = o.arg, true
		case 'd':
			del = true
		case 't':
			targets = true
		}
	}
	if (targets || del) && len(names) == 0 {
		opt := "-t"
		if del {
			opt = "-d"
		}
		r.errorf("hash: %s: option requires an argument", opt)
		return 1
	}
	if len(names) == 0 && !reset {
		if len(r.hashed) == 0 {
			if !portable {
				return r.out("hash", "hash: hash table empty\n")
			}
			return 0
		}
		if len(r.hashed) >= 2*hashBuckets {
			return r.raise(r.refuseHere("listing a hash table of 512 or more commands (bash reorders it as it grows)",
				"list fewer commands, or run the tool with \"exec\": \"native\""))
		}
		var b strings.Builder
		if !portable {
			b.WriteString("hits\tcommand\n")
		}
		for _, n := range r.hashOrder() {
			e := r.hashed[n]
			if portable {
				b.WriteString("builtin hash -p " + printableName(e.path) + " " + printableName(n) + "\n")
			} else {
				fmt.Fprintf(&b, "%4d\t%s\n", e.hits, e.path)
			}
		}
		return r.out("hash", b.String())
	}
	if reset {
		r.hashed, r.hashOwned = nil, false
	}
	st := 0
	var b strings.Builder
	if targets {
		for _, n := range names {
			p, ok := r.hashSearch(n)
			if !ok {
				r.errorf("hash: %s: not found", n)
				st = 1
				continue
			}
			switch {
			case portable:
				b.WriteString("builtin hash -p " + p + " " + n + "\n")
			case len(names) > 1:
				b.WriteString(n + "\t" + p + "\n")
			default:
				b.WriteString(p + "\n")
			}
		}
		if c := r.out("hash", b.String()); c != 0 {
			return c
		}
		return st
	}
	for _, n := range names {
		switch {
		case strings.Contains(n, "/"):
			continue
		case havePath:
			if fi, err := r.c.fs.Stat(r.absPath(setPath)); err == nil && fi.IsDir() {
				r.errorf("hash: %s: Is a directory", setPath)
				st = 1
				continue
			}
			r.hashInsert(n, setPath, 0)
		case del:
			if !r.hashRemove(n) {
				r.errorf("hash: %s: not found", n)
				st = 1
			}
		default:
			if _, ok := builtinTable[n]; ok || r.funcs.m[n] != nil || r.hookBuiltin(n) != nil {
				continue
			}
			r.hashRemove(n)
			p, ok := r.lookPath(n)
			if !ok {
				r.errorf("hash: %s: not found%s", n, r.missingNote(n))
				st = 1
				continue
			}
			r.hashInsert(n, p, 0)
		}
	}
	return st
}
