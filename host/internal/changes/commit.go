package changes

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/mcp-bash/mcp-bash/sandbox"
)

// A commit writes a change set into its roots in two phases, recorded in a journal in the
// set's directory (written and synced before each phase):
//
//  1. staging: new directories are made, and every file and link of the set is written to a
//     temporary name next to its target (a renamed file is hard-linked there), synced. Nothing
//     a reader of the roots knows by name has changed yet.
//  2. applying: what goes is removed (deepest first), the temporary names are renamed over
//     their targets (rename(2) is atomic: a reader sees the old file or the new one), then modes
//     and times are set.
//
// Before staging every path the set touches is checked against what the call saw (its base):
// when anything differs, the commit stops before writing and reports the conflicts; they are
// checked again once staging is done, and staging is undone if one appeared meanwhile. A crash
// in staging is undone when the store is next opened (the set still waits); a crash while
// applying is finished then (each step can be done again), so every file ends old or new.

const journalName = "journal.json"

// journal is a commit in progress.
type journal struct {
	ID    string `json:"id"`
	State string `json:"state"` // staging, applying
	By    Actor  `json:"by"`
	Ops   []op   `json:"ops"`
}

// op is one step of a commit. Staging ops: mkdir, stage (a data file copied), link (a root's
// file hard-linked, or copied), symlink. Apply ops: clear (a delete that makes way for an entry
// of another kind), mkdir-late, rename, delete, chmod, chtimes.
type op struct {
	Do     string        `json:"do"`
	Root   string        `json:"root"`
	Path   string        `json:"path"`
	Temp   string        `json:"temp,omitempty"`
	Data   string        `json:"data,omitempty"`
	From   string        `json:"from,omitempty"`
	Target string        `json:"target,omitempty"`
	Mode   fs.FileMode   `json:"mode,omitempty"`
	SHA256 string        `json:"sha256,omitempty"`
	Base   *sandbox.Base `json:"base,omitempty"`
	Atime  *time.Time    `json:"atime,omitempty"`
	Mtime  *time.Time    `json:"mtime,omitempty"`
}

func (o *op) staging() bool {
	switch o.Do {
	case "mkdir", "stage", "link", "symlink":
		return true
	}
	return false
}

// Conflict is a path whose state differs from what the call saw.
type Conflict struct {
	Path string `json:"path"`
	Why  string `json:"why"`
}

// Result is what a commit did.
type Result struct {
	Set       *Set
	Committed bool
	Conflicts []Conflict
}

// ConflictText lists conflicts for a person.
func ConflictText(cs []Conflict) string {
	var sb strings.Builder
	for _, c := range cs {
		fmt.Fprintf(&sb, "  %s: %s\n", c.Path, c.Why)
	}
	return strings.TrimRight(sb.String(), "\n")
}

// Commit writes a waiting set into its roots, or reports the conflicts that stop it (the set
// then still waits).
func (s *Store) Commit(ctx context.Context, id string, by Actor) (*Result, error) {
	unlock, err := s.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	s.recoverAll()
	set, err := s.load(id)
	if err != nil {
		return nil, err
	}
	roots, err := openRoots(set)
	if err != nil {
		return nil, err
	}
	defer roots.close()
	ops, conflicts := plan(set, roots, nil)
	if len(conflicts) > 0 {
		s.event("conflict", set, &by, fmt.Sprintf("%d conflict(s); nothing written", len(conflicts)))
		return &Result{Set: set, Conflicts: conflicts}, nil
	}
	j := &journal{ID: id, State: "staging", By: by, Ops: ops}
	jp := filepath.Join(s.setDir(id), journalName)
	if err := writeJSON(jp, j); err != nil {
		return nil, err
	}
	undo := func() {
		rollback(j, roots)
		os.Remove(jp)
	}
	if err := stage(ctx, j, set, roots); err != nil {
		undo()
		return nil, err
	}
	if _, conflicts := plan(set, roots, j); len(conflicts) > 0 {
		undo()
		s.event("conflict", set, &by, fmt.Sprintf("%d conflict(s) appeared while staging; nothing written", len(conflicts)))
		return &Result{Set: set, Conflicts: conflicts}, nil
	}
	j.State = "applying"
	if err := writeJSON(jp, j); err != nil {
		undo()
		return nil, err
	}
	errs := apply(j, roots, false)
	detail := ""
	if len(errs) > 0 {
		detail = "some steps failed: " + strings.Join(errs, "; ")
	}
	// Logged before the set is dropped: a crash in between logs it twice, never not at all.
	s.event("committed", set, &by, detail)
	s.drop(id)
	if len(errs) > 0 {
		return &Result{Set: set, Committed: true}, fmt.Errorf("the commit wrote what it could; %s", detail)
	}
	return &Result{Set: set, Committed: true}, nil
}

// roots are a set's roots, opened.
type rootSet map[string]*os.Root

func openRoots(set *Set) (rootSet, error) {
	rs := rootSet{}
	for _, r := range set.Manifest.Roots {
		rt, err := sandbox.OpenRoot(r.Path)
		if err != nil {
			rs.close()
			return nil, fmt.Errorf("root %s: %w", r.Path, err)
		}
		rs[r.Path] = rt
	}
	return rs, nil
}

func (rs rootSet) close() {
	for _, r := range rs {
		r.Close()
	}
}

// current is what a root holds at p now.
func current(rt *os.Root, p string) (sandbox.Base, fs.FileInfo) {
	fi, err := rt.Lstat(p)
	if err != nil {
		return sandbox.Base{Path: p}, nil
	}
	b := sandbox.BaseOf(fi)
	b.Path = p
	return b, fi
}

func ancestors(p string) []string {
	var out []string
	for d := path.Dir(p); d != "."; d = path.Dir(d) {
		out = append(out, d)
	}
	return out
}

func depth(p string) int { return strings.Count(p, "/") }

// plan checks a set against its roots and, when nothing conflicts, returns the steps that
// write it. staged, when set, is a commit whose staging is done: what it made is not a
// conflict.
func plan(set *Set, roots rootSet, staged *journal) ([]op, []Conflict) {
	ours := map[string]bool{}
	if staged != nil {
		for _, o := range staged.Ops {
			if o.Do == "mkdir" {
				ours[path.Join(o.Root, o.Path)] = true
			}
		}
	}
	// A renamed file is hard-linked to its new name while staging, which changes its status
	// time: its content is checked by digest instead.
	linked := map[string]bool{}
	sums := map[string]string{}
	for _, f := range set.Files {
		sums[f.Abs()] = f.SHA256
	}
	var ops []op
	var conflicts []Conflict
	for _, r := range set.Manifest.Roots {
		for _, e := range r.Entries {
			if e.Kind == "file" && e.Data == "" && e.Origin != e.Path {
				linked[path.Join(r.Path, e.Origin)] = true
			}
		}
		o, c := planRoot(set.ID, &r, roots[r.Path], sums, ours, linked)
		ops = append(ops, o...)
		conflicts = append(conflicts, c...)
	}
	// Staging first; then what stands where something of another kind goes (deepest first),
	// late directories (parents first), the renames, the other deletes (after the renames: a
	// renamed file keeps its old name until its new one holds it), modes and times
	// (directories last: their own times change as their entries do).
	rank := map[string]int{"mkdir": 0, "stage": 1, "link": 1, "symlink": 1, "clear": 2, "mkdir-late": 3, "rename": 4, "delete": 5, "chmod": 6, "chtimes": 7}
	sort.SliceStable(ops, func(i, j int) bool {
		a, b := ops[i], ops[j]
		if rank[a.Do] != rank[b.Do] {
			return rank[a.Do] < rank[b.Do]
		}
		if a.Do == "delete" || a.Do == "clear" || a.Do == "chmod" || a.Do == "chtimes" {
			return depth(a.Path) > depth(b.Path)
		}
		return false
	})
	return ops, conflicts
}

func planRoot(id string, r *sandbox.LayerRoot, rt *os.Root, sums map[string]string, ours, linked map[string]bool) ([]op, []Conflict) {
	var conflicts []Conflict
	conflict := func(p, why string) {
		conflicts = append(conflicts, Conflict{Path: path.Join(r.Path, p), Why: why})
	}
	base := map[string]sandbox.Base{}
	for _, b := range r.Base {
		base[b.Path] = b
	}
	entries := map[string]sandbox.Entry{}
	for _, e := range r.Entries {
		entries[e.Path] = e
		if sandbox.Protects(r.Protected, e.Path) {
			conflict(e.Path, "is protected project metadata, which a commit never writes")
		}
	}
	// What the root holds where the call read it must be what it holds now.
	for i := range r.Base {
		if linked[path.Join(r.Path, r.Base[i].Path)] {
			r.Base[i].CtimeNs = 0
		}
	}
	for _, b := range r.Base {
		now, fi := current(rt, b.Path)
		switch {
		case ours[path.Join(r.Path, b.Path)]:
		case b.Exists && !now.Exists:
			conflict(b.Path, "was deleted since the call read it")
		case !b.Exists && now.Exists:
			conflict(b.Path, "was created since the call ran")
		case !b.Same(now):
			conflict(b.Path, "was changed since the call read it")
		case b.Kind == "symlink":
			if t, _ := rt.Readlink(b.Path); t != b.Target {
				conflict(b.Path, "was changed since the call read it")
			}
		case b.Kind == "file" && b.SHA256 != "" && fi != nil:
			if sum, err := hashFile(rt, b.Path); err != nil || sum != b.SHA256 {
				conflict(b.Path, "was changed since the call read it")
			}
		}
	}
	// fate of what the root held: delete it, or let the set's entry replace or keep it.
	deleted := func(p string, b sandbox.Base) bool {
		if e, ok := entries[p]; ok {
			switch e.Kind {
			case "gone":
				return true
			case "dir":
				return b.Kind != "dir"
			}
			return b.Kind == "dir"
		}
		for _, a := range ancestors(p) {
			if e, ok := entries[a]; ok && (e.Kind != "dir" || e.Opaque) {
				return true
			}
		}
		return false
	}
	// kindChanged are the entries that replace something of another kind: what stands there
	// must go before they come.
	var kindChanged []string
	for _, e := range r.Entries {
		if b := base[e.Path]; e.Kind != "gone" && b.Exists && deleted(e.Path, b) {
			kindChanged = append(kindChanged, e.Path)
		}
	}
	clears := func(p string) bool {
		for _, k := range kindChanged {
			if p == k || strings.HasPrefix(p, k+"/") {
				return true
			}
		}
		return false
	}
	var ops []op
	cleared := map[string]bool{} // directories whose every entry the set decides
	for _, b := range r.Base {
		if !b.Exists || !deleted(b.Path, b) {
			continue
		}
		bb := b
		do := "delete"
		if clears(b.Path) {
			do = "clear"
		}
		ops = append(ops, op{Do: do, Root: r.Path, Path: b.Path, Base: &bb})
		if b.Kind == "dir" {
			cleared[b.Path] = true
		}
	}
	for _, e := range r.Entries {
		if b := base[e.Path]; e.Kind == "dir" && e.Opaque && b.Exists && b.Kind == "dir" {
			cleared[e.Path] = true
		}
	}
	for d := range cleared {
		ents, err := readDirNames(rt, d)
		if err != nil {
			continue // a conflict above already says it changed
		}
		for _, n := range ents {
			if strings.HasPrefix(n, tempPrefix(id)) {
				continue
			}
			if b, ok := base[path.Join(d, n)]; !ok || !b.Exists {
				conflict(path.Join(d, n), "appeared since the call ran, in a directory the call replaced or removed")
			}
		}
	}
	// Directories on the way must still be directories, not links (the paths are the call's,
	// with no link on the way).
	made := map[string]bool{}
	late := map[string]bool{}
	for _, e := range r.Entries {
		if e.Kind == "dir" && e.Opaque && !base[e.Path].Exists {
			made[e.Path] = true
		}
		if e.Kind == "dir" && e.Opaque && base[e.Path].Exists && base[e.Path].Kind != "dir" {
			late[e.Path] = true
		}
	}
	checked := map[string]bool{}
	for _, e := range r.Entries {
		for _, a := range ancestors(e.Path) {
			if checked[a] || made[a] || late[a] {
				continue
			}
			if _, isEntry := entries[a]; isEntry && entries[a].Opaque {
				continue
			}
			checked[a] = true
			if fi, err := rt.Lstat(a); err != nil || !fi.IsDir() {
				conflict(a, "is no longer a directory")
			}
		}
	}
	// underLate: a directory made after the deletes, or inside one.
	underLate := func(p string) bool {
		for _, a := range append([]string{p}, ancestors(p)...) {
			if late[a] {
				return true
			}
		}
		return false
	}
	// stageDir is where p's temporary file goes: its directory when that exists before the
	// apply phase, else the nearest directory on the way that does.
	stageDir := func(p string) string {
		for _, a := range ancestors(p) {
			if !underLate(a) {
				if _, del := entries[a]; !del || entries[a].Kind == "dir" {
					return a
				}
			}
		}
		return "."
	}
	n := 0
	temp := func(p string) string {
		n++
		return path.Join(stageDir(p), fmt.Sprintf("%s%d", tempPrefix(id), n))
	}
	for _, e := range r.Entries {
		b := base[e.Path]
		switch e.Kind {
		case "dir":
			switch {
			case !e.Opaque:
				if e.Own && b.Mode != e.Mode {
					ops = append(ops, op{Do: "chmod", Root: r.Path, Path: e.Path, Mode: e.Mode})
				}
			case underLate(e.Path):
				ops = append(ops, op{Do: "mkdir-late", Root: r.Path, Path: e.Path}, op{Do: "chmod", Root: r.Path, Path: e.Path, Mode: e.Mode})
			case !b.Exists:
				ops = append(ops, op{Do: "mkdir", Root: r.Path, Path: e.Path}, op{Do: "chmod", Root: r.Path, Path: e.Path, Mode: e.Mode})
			case b.Mode != e.Mode:
				ops = append(ops, op{Do: "chmod", Root: r.Path, Path: e.Path, Mode: e.Mode})
			}
			if e.Mtime != nil {
				ops = append(ops, op{Do: "chtimes", Root: r.Path, Path: e.Path, Atime: e.Atime, Mtime: e.Mtime})
			}
		case "symlink":
			if b.Exists && b.Kind == "symlink" && b.Target == e.Target {
				continue
			}
			t := temp(e.Path)
			ops = append(ops, op{Do: "symlink", Root: r.Path, Path: e.Path, Temp: t, Target: e.Target},
				op{Do: "rename", Root: r.Path, Path: e.Path, Temp: t})
		case "file":
			switch {
			case e.Data != "":
				t := temp(e.Path)
				ops = append(ops, op{Do: "stage", Root: r.Path, Path: e.Path, Temp: t, Data: e.Data, Mode: e.Mode,
					SHA256: sums[path.Join(r.Path, e.Path)], Atime: e.Atime, Mtime: e.Mtime},
					op{Do: "rename", Root: r.Path, Path: e.Path, Temp: t})
			case e.Origin != e.Path:
				t := temp(e.Path)
				ops = append(ops, op{Do: "link", Root: r.Path, Path: e.Path, Temp: t, From: e.Origin, SHA256: sums[path.Join(r.Path, e.Path)]},
					op{Do: "rename", Root: r.Path, Path: e.Path, Temp: t})
				if base[e.Origin].Mode != e.Mode {
					ops = append(ops, op{Do: "chmod", Root: r.Path, Path: e.Path, Mode: e.Mode})
				}
				if e.Mtime != nil {
					ops = append(ops, op{Do: "chtimes", Root: r.Path, Path: e.Path, Atime: e.Atime, Mtime: e.Mtime})
				}
			default:
				if b.Mode != e.Mode {
					ops = append(ops, op{Do: "chmod", Root: r.Path, Path: e.Path, Mode: e.Mode})
				}
				if e.Mtime != nil {
					ops = append(ops, op{Do: "chtimes", Root: r.Path, Path: e.Path, Atime: e.Atime, Mtime: e.Mtime})
				}
			}
		}
	}
	return ops, conflicts
}

// tempPrefix begins the names of a commit's temporary files.
func tempPrefix(id string) string { return ".mcpbash-commit-" + id + "-" }

func readDirNames(rt *os.Root, d string) ([]string, error) {
	f, err := rt.OpenFile(d, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}

func hashFile(rt *os.Root, p string) (string, error) {
	b, err := readLower(rt, p)
	if err != nil {
		return "", err
	}
	return digest(b), nil
}

// stage runs the staging steps.
func stage(ctx context.Context, j *journal, set *Set, roots rootSet) error {
	data, err := os.OpenRoot(set.Manifest.Dir)
	if err != nil {
		return err
	}
	defer data.Close()
	dirs := map[string]map[string]bool{}
	touched := func(root, p string) {
		if dirs[root] == nil {
			dirs[root] = map[string]bool{}
		}
		dirs[root][path.Dir(p)] = true
	}
	for i := range j.Ops {
		o := &j.Ops[i]
		if !o.staging() {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rt := roots[o.Root]
		var err error
		switch o.Do {
		case "mkdir":
			err = rt.Mkdir(o.Path, 0o700)
			touched(o.Root, o.Path)
		case "stage":
			err = stageCopy(rt, o.Temp, func(w io.Writer) error { return copyFrom(data, o.Data, w) }, o)
			touched(o.Root, o.Temp)
		case "link":
			if err = rt.Link(o.From, o.Temp); err == nil {
				// The same file under a second name: it must still hold what was shown.
				if sum, herr := hashFile(rt, o.Temp); herr != nil || (o.SHA256 != "" && sum != o.SHA256) {
					err = errors.New("its content is not the content that was shown for approval (the root changed); nothing was written")
				}
			} else {
				// No hard links here (another file system below the root, or none at all): a copy.
				err = stageCopy(rt, o.Temp, func(w io.Writer) error { return copyFrom(rt, o.From, w) }, o)
			}
			touched(o.Root, o.Temp)
		case "symlink":
			err = rt.Symlink(o.Target, o.Temp)
			touched(o.Root, o.Temp)
		}
		if err != nil {
			return fmt.Errorf("staging %s: %w", path.Join(o.Root, o.Path), err)
		}
	}
	for root, ds := range dirs {
		for d := range ds {
			if err := syncRootDir(roots[root], d); err != nil {
				return err
			}
		}
	}
	return nil
}

// stageCopy writes a new file at temp (exclusive, private until renamed) from fill, checks its
// digest against the set's, gives it its mode and times, and syncs it.
func stageCopy(rt *os.Root, temp string, fill func(io.Writer) error, o *op) error {
	f, err := rt.OpenFile(temp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	h := sha256.New()
	err = fill(io.MultiWriter(f, h))
	if err == nil && o.SHA256 != "" && hex.EncodeToString(h.Sum(nil)) != o.SHA256 {
		err = errors.New("its content is not the content that was shown for approval (the layer or the root changed); nothing was written")
	}
	if err == nil && o.Do == "stage" {
		err = f.Chmod(o.Mode)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && o.Mtime != nil && o.Do == "stage" {
		err = rt.Chtimes(temp, *o.Atime, *o.Mtime)
	}
	return err
}

func copyFrom(r *os.Root, name string, w io.Writer) error {
	f, err := r.OpenFile(name, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return errors.New("not a regular file")
	}
	_, err = io.Copy(w, f)
	return err
}

func syncRootDir(rt *os.Root, d string) error {
	f, err := rt.OpenFile(d, os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// rollback undoes staging: temporary files and made directories go.
func rollback(j *journal, roots rootSet) {
	for i := len(j.Ops) - 1; i >= 0; i-- {
		o := j.Ops[i]
		rt := roots[o.Root]
		if rt == nil || !o.staging() {
			continue
		}
		switch o.Do {
		case "mkdir":
			rt.Remove(o.Path) // only when empty
		default:
			if strings.HasPrefix(path.Base(o.Temp), tempPrefix(j.ID)) {
				rt.Remove(o.Temp)
			}
		}
	}
}

// apply runs the apply steps; again marks a run after a crash, where each step checks whether
// it already happened. It returns what failed.
func apply(j *journal, roots rootSet, again bool) []string {
	var errs []string
	dirs := map[string]map[string]bool{}
	for _, o := range j.Ops {
		if o.staging() {
			continue
		}
		rt := roots[o.Root]
		if rt == nil {
			continue
		}
		if dirs[o.Root] == nil {
			dirs[o.Root] = map[string]bool{}
		}
		dirs[o.Root][path.Dir(o.Path)] = true
		var err error
		switch o.Do {
		case "delete", "clear":
			now, _ := current(rt, o.Path)
			switch {
			case !now.Exists:
			case o.Base != nil && !o.Base.Same(now):
				err = errors.New("left in place: it changed after the commit began")
			default:
				err = rt.Remove(o.Path)
			}
		case "mkdir-late":
			if err = rt.Mkdir(o.Path, 0o700); errors.Is(err, fs.ErrExist) {
				err = nil
			}
		case "rename":
			if _, lerr := rt.Lstat(o.Temp); again && errors.Is(lerr, fs.ErrNotExist) {
				break // renamed before the crash
			}
			err = rt.Rename(o.Temp, o.Path)
		case "chmod":
			err = rt.Chmod(o.Path, o.Mode)
		case "chtimes":
			err = rt.Chtimes(o.Path, *o.Atime, *o.Mtime)
		}
		if err != nil && !(again && errors.Is(err, fs.ErrNotExist)) {
			errs = append(errs, fmt.Sprintf("%s %s: %v", o.Do, path.Join(o.Root, o.Path), err))
		}
	}
	for root, ds := range dirs {
		for d := range ds {
			syncRootDir(roots[root], d)
		}
	}
	return errs
}

// recoverAll finishes or undoes the commits a crash interrupted (lock held).
func (s *Store) recoverAll() {
	ents, _ := os.ReadDir(filepath.Join(s.dir, "pending"))
	for _, e := range ents {
		jp := filepath.Join(s.setDir(e.Name()), journalName)
		b, err := os.ReadFile(jp)
		if err != nil {
			continue
		}
		var j journal
		set, lerr := s.load(e.Name())
		if json.Unmarshal(b, &j) != nil || lerr != nil || j.ID != set.ID {
			continue
		}
		roots, err := openRoots(set)
		if err != nil {
			continue // a root is missing now: try again later
		}
		switch j.State {
		case "applying":
			errs := apply(&j, roots, true)
			detail := "finished after an interrupted commit"
			if len(errs) > 0 {
				detail += "; some steps failed: " + strings.Join(errs, "; ")
			}
			s.event("committed", set, &j.By, detail)
			s.drop(set.ID)
		default:
			rollback(&j, roots)
			os.Remove(jp)
			s.event("recovered", set, &j.By, "a commit interrupted before it wrote anything was undone; the set still waits")
		}
		roots.close()
	}
}
