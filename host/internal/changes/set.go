// Package changes is review mode's side of the host: the change set a review-mode call leaves
// (what its copy-on-write layer holds, as files added, changed, deleted and renamed, with a
// unified diff for text and a summary for binary content), the store where change sets wait
// for a person's word (MCPBASH_CHANGES_DIR: private to the server's user, outside every root),
// and the commit that writes one into its roots: every file replaced atomically, nothing
// written when a target changed since the call read it, and a journal so that a crash during a
// commit leaves every file old or new, never partial.
package changes

import (
	"bufio"
	"bytes"
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
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcp-bash/mcp-bash/interp/udiff"
	"github.com/mcp-bash/mcp-bash/sandbox"
)

// The kinds of change of a File.
const (
	Added   = "added"
	Changed = "changed"
	Deleted = "deleted"
	Renamed = "renamed"
)

// maxDiffBytes bounds each side of a file's diff: a larger text is summarised; a set keeps at
// most maxSetDiffBytes of diffs in all.
const (
	maxDiffBytes    = 1 << 20
	maxSetDiffBytes = 4 << 20
)

// Set is one call's change set.
type Set struct {
	ID string `json:"id"`
	// Tool is the tool that made it; Session, Tenant and Subject say whose call it was.
	Tool    string    `json:"tool"`
	Session string    `json:"session,omitempty"`
	Tenant  string    `json:"tenant,omitempty"`
	Subject string    `json:"subject,omitempty"`
	Created time.Time `json:"created"`
	Expires time.Time `json:"expires"`
	// Files are the changes, by root and path.
	Files []File `json:"files"`
	// Digest identifies the changes (paths, kinds, modes, contents): what a person approved is
	// what a commit writes.
	Digest string `json:"digest"`
	// Manifest is the layer's (its Dir is where the set's data files are).
	Manifest sandbox.LayerManifest `json:"manifest"`
}

// File is one change.
type File struct {
	// Root is the root's path; Path is relative to it.
	Root   string `json:"root"`
	Path   string `json:"path"`
	Change string `json:"change"`
	// Kind is file, dir or symlink.
	Kind string `json:"kind"`
	// From is where a renamed file was.
	From    string      `json:"from,omitempty"`
	OldMode fs.FileMode `json:"oldMode,omitempty"`
	NewMode fs.FileMode `json:"newMode,omitempty"`
	OldSize int64       `json:"oldSize,omitempty"`
	NewSize int64       `json:"newSize,omitempty"`
	// OldTarget and NewTarget are a link's.
	OldTarget string `json:"oldTarget,omitempty"`
	NewTarget string `json:"newTarget,omitempty"`
	// SHA256 is the new content's digest (files with new content).
	SHA256 string `json:"sha256,omitempty"`
	Binary bool   `json:"binary,omitempty"`
	// Added and Removed count a text diff's lines; Diff is the diff itself ("" for binary
	// content, directories and links, or text too large to show).
	AddedLines   int    `json:"addedLines,omitempty"`
	RemovedLines int    `json:"removedLines,omitempty"`
	Diff         string `json:"diff,omitempty"`
	Note         string `json:"note,omitempty"`
}

// Abs is the file's absolute path.
func (f *File) Abs() string { return path.Join(f.Root, f.Path) }

// Build reads a manifest's layer and roots and returns its change set (unsaved: no ID yet).
// Only the roots' current content is read, through os.Root; nothing is written.
func Build(ctx context.Context, m *sandbox.LayerManifest) (*Set, error) {
	set := &Set{Manifest: *m, Files: []File{}}
	data, err := os.OpenRoot(m.Dir)
	if err != nil {
		return nil, fmt.Errorf("the call's layer: %w", err)
	}
	defer data.Close()
	for _, r := range m.Roots {
		lower, err := sandbox.OpenRoot(r.Path)
		if err != nil {
			return nil, fmt.Errorf("root %s: %w", r.Path, err)
		}
		files, err := buildRoot(ctx, &r, lower, data)
		lower.Close()
		if err != nil {
			return nil, err
		}
		set.Files = append(set.Files, files...)
	}
	sortFiles(set.Files)
	// The set keeps its diffs (a person reads them later): at most maxSetDiffBytes of them.
	kept := 0
	for i := range set.Files {
		f := &set.Files[i]
		if kept += len(f.Diff); kept > maxSetDiffBytes && f.Diff != "" {
			f.Diff, f.Note = "", "diff not kept: the change set's diffs pass 4 MiB"
		}
	}
	set.Digest = digestOf(set.Files)
	return set, nil
}

// buildRoot lists one root's changes.
func buildRoot(ctx context.Context, r *sandbox.LayerRoot, lower, data *os.Root) ([]File, error) {
	base := map[string]sandbox.Base{}
	for _, b := range r.Base {
		base[b.Path] = b
	}
	moved := map[string]bool{} // origins of renamed files: not shown as deleted
	entries := map[string]bool{}
	for _, e := range r.Entries {
		entries[e.Path] = true
		if e.Kind == "file" && e.From != "" && e.From != e.Path {
			moved[e.From] = true
		}
	}
	var out []File
	add := func(f File) {
		f.Root = r.Path
		out = append(out, f)
	}
	// del lists what the root held at b.Path as deleted (once).
	gone := map[string]bool{}
	del := func(b sandbox.Base) {
		if !b.Exists || moved[b.Path] || gone[b.Path] {
			return
		}
		gone[b.Path] = true
		f := File{Path: b.Path, Change: Deleted, Kind: b.Kind, OldMode: b.Mode, OldSize: b.Size, OldTarget: b.Target}
		if b.Kind == "file" {
			if old, err := readLower(lower, b.Path); err == nil {
				describeText(ctx, &f, old, nil, b.Path)
			}
		}
		add(f)
	}
	// deleted lists what the root held at p and below it.
	deleted := func(p string, self bool) {
		for _, b := range r.Base {
			if (self && b.Path == p) || (strings.HasPrefix(b.Path, p+"/") && !entries[b.Path]) {
				del(b)
			}
		}
	}
	for _, e := range r.Entries {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		b := base[e.Path]
		switch e.Kind {
		case "gone":
			deleted(e.Path, true)
		case "dir":
			switch {
			case e.Opaque && b.Exists && b.Kind == "dir":
				// Replaced: what it held goes; what the layer holds below comes as entries.
				deleted(e.Path, false)
				if b.Mode != e.Mode {
					add(File{Path: e.Path, Change: Changed, Kind: "dir", OldMode: b.Mode, NewMode: e.Mode})
				}
			case e.Opaque:
				if b.Exists {
					del(b)
				}
				add(File{Path: e.Path, Change: Added, Kind: "dir", NewMode: e.Mode})
			case e.Own && (b.Mode != e.Mode || e.Mtime != nil):
				f := File{Path: e.Path, Change: Changed, Kind: "dir", OldMode: b.Mode, NewMode: e.Mode}
				if b.Mode == e.Mode {
					f.Note = "times changed"
				}
				add(f)
			}
		case "symlink":
			f := File{Path: e.Path, Change: Added, Kind: "symlink", NewTarget: e.Target}
			if b.Exists && b.Kind == "symlink" {
				if b.Target == e.Target {
					continue
				}
				f.Change, f.OldTarget = Changed, b.Target
			} else if b.Exists {
				deleted(e.Path, true)
			}
			add(f)
		case "file":
			f, keep, err := fileChange(ctx, e, b, lower, data)
			if err != nil {
				return nil, err
			}
			if !keep {
				continue
			}
			if b.Exists && b.Kind != "file" {
				deleted(e.Path, b.Kind != "dir")
			}
			add(f)
		}
	}
	return out, nil
}

// fileChange describes a file entry; keep is false when it changes nothing (content written
// back as it was, a mode set to what it was).
func fileChange(ctx context.Context, e sandbox.Entry, b sandbox.Base, lower, data *os.Root) (File, bool, error) {
	f := File{Path: e.Path, Kind: "file", NewMode: e.Mode}
	prev := e.Path // what the diff compares with
	switch {
	case e.From != "" && e.From != e.Path:
		f.Change, f.From, prev = Renamed, e.From, e.From
	case b.Exists && b.Kind == "file":
		f.Change = Changed
	default:
		f.Change, prev = Added, ""
	}
	var old []byte
	if prev != "" {
		fi, err := lower.Lstat(prev)
		if err == nil && fi.Mode().IsRegular() {
			f.OldMode, f.OldSize = fi.Mode().Perm()|fi.Mode()&fs.ModeSticky, fi.Size()
			old, _ = readLower(lower, prev)
		}
	}
	var now []byte
	if e.Data != "" {
		b, sum, err := readData(data, e.Data)
		if err != nil {
			return f, false, fmt.Errorf("the call's layer: %s: %w", e.Path, err)
		}
		now, f.SHA256 = b, sum
	} else {
		now = old
		f.SHA256 = digest(old)
	}
	f.NewSize = int64(len(now))
	if f.Change == Changed && e.Data != "" && bytes.Equal(old, now) && f.OldMode == f.NewMode && e.Mtime == nil {
		return f, false, nil
	}
	if f.Change == Changed && e.Data == "" {
		if f.OldMode == f.NewMode && e.Mtime == nil {
			return f, false, nil
		}
		if f.OldMode == f.NewMode {
			f.Note = "times changed"
		}
		return f, true, nil
	}
	if f.Change == Renamed && e.Data == "" {
		return f, true, nil
	}
	if prev == "" {
		old = nil
	}
	describeText(ctx, &f, old, now, e.Path)
	return f, true, nil
}

// describeText fills a file's diff (text) or marks it binary.
func describeText(ctx context.Context, f *File, old, now []byte, name string) {
	switch {
	case isBinary(old) || isBinary(now):
		f.Binary = true
		return
	case len(old) > maxDiffBytes || len(now) > maxDiffBytes:
		f.Note = "too large to show as a diff"
		return
	}
	a, b := text("a/"+name, old), text("b/"+name, now)
	if old == nil {
		a.Header = "/dev/null"
	}
	if now == nil {
		b.Header = "/dev/null"
	}
	ia, ib := udiff.IDs(a.Lines, b.Lines, func(l string, noEOL bool) string {
		if noEOL {
			return l + "\x00"
		}
		return l
	}, a.NoEOL, b.NoEOL)
	hunks, err := udiff.Lines(ctx, ia, ib, nil)
	if err != nil {
		f.Note = "diff not shown: " + err.Error()
		return
	}
	for _, h := range hunks {
		f.RemovedLines += h.A1 - h.A0
		f.AddedLines += h.B1 - h.B0
	}
	var sb strings.Builder
	w := bufio.NewWriter(&sb)
	udiff.WriteUnified(w, a, b, hunks, 3)
	w.Flush()
	f.Diff = sb.String()
}

func text(header string, b []byte) *udiff.Text {
	t := &udiff.Text{Header: header}
	if len(b) == 0 {
		return t
	}
	s := string(b)
	t.NoEOL = !strings.HasSuffix(s, "\n")
	t.Lines = strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	return t
}

// isBinary: a NUL byte, or text that is not UTF-8.
func isBinary(b []byte) bool {
	return bytes.IndexByte(b, 0) >= 0 || !utf8.Valid(b)
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// readLower reads a regular file of a root (never a FIFO or device: Lstat first, O_NONBLOCK).
func readLower(r *os.Root, p string) ([]byte, error) {
	f, err := r.OpenFile(p, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	return io.ReadAll(f)
}

// readData reads a data file of the layer and its digest.
func readData(data *os.Root, name string) ([]byte, string, error) {
	b, err := readLower(data, name)
	if err != nil {
		return nil, "", err
	}
	return b, digest(b), nil
}

// digestOf identifies a list of changes.
func digestOf(files []File) string {
	h := sha256.New()
	for _, f := range files {
		b, _ := json.Marshal([]any{f.Root, f.Path, f.Change, f.Kind, f.From, f.NewMode, f.SHA256, f.NewTarget})
		h.Write(b)
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Counts are how many files each kind of change touches.
func (s *Set) Counts() map[string]int {
	c := map[string]int{}
	for _, f := range s.Files {
		c[f.Change]++
	}
	return c
}

// Summary is one line per change, at most max lines (then how many more).
func (s *Set) Summary(max int) string {
	var sb strings.Builder
	c := s.Counts()
	var parts []string
	for _, k := range []string{Added, Changed, Renamed, Deleted} {
		if c[k] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c[k], k))
		}
	}
	if len(parts) == 0 {
		return "no changes"
	}
	fmt.Fprintf(&sb, "%d change(s): %s\n", len(s.Files), strings.Join(parts, ", "))
	for i, f := range s.Files {
		if i == max {
			fmt.Fprintf(&sb, "  ... and %d more\n", len(s.Files)-max)
			break
		}
		sb.WriteString("  " + f.Line() + "\n")
	}
	return strings.TrimRight(sb.String(), "\n")
}

// Line describes one change on a line.
func (f *File) Line() string {
	mark := map[string]string{Added: "A", Changed: "M", Deleted: "D", Renamed: "R"}[f.Change]
	s := mark + " " + f.Abs()
	if f.Kind == "dir" {
		s += "/"
	}
	if f.From != "" {
		s = mark + " " + path.Join(f.Root, f.From) + " -> " + f.Abs()
	}
	var detail []string
	switch {
	case f.Kind == "symlink" && f.NewTarget != "":
		detail = append(detail, "link to "+f.NewTarget)
	case f.Binary:
		detail = append(detail, fmt.Sprintf("binary, %d -> %d bytes", f.OldSize, f.NewSize))
	case f.AddedLines+f.RemovedLines > 0:
		detail = append(detail, fmt.Sprintf("+%d -%d", f.AddedLines, f.RemovedLines))
	}
	if f.OldMode != f.NewMode && f.Change == Changed {
		detail = append(detail, fmt.Sprintf("mode %04o -> %04o", uint32(f.OldMode.Perm()), uint32(f.NewMode.Perm())))
	}
	if f.Note != "" {
		detail = append(detail, f.Note)
	}
	if len(detail) > 0 {
		s += " (" + strings.Join(detail, "; ") + ")"
	}
	return s
}

// Patch is the unified diffs of the set's text files, at most max bytes (then a note).
func (s *Set) Patch(max int) string {
	var sb strings.Builder
	for _, f := range s.Files {
		if f.Diff == "" {
			continue
		}
		if sb.Len()+len(f.Diff) > max {
			fmt.Fprintf(&sb, "... (the rest of the diff is longer than %d bytes: `mcp-bash changes show %s` shows it all)\n", max, s.ID)
			break
		}
		sb.WriteString(f.Diff)
	}
	return sb.String()
}

// sortFiles orders changes by root and path.
func sortFiles(files []File) {
	sort.SliceStable(files, func(i, j int) bool {
		if files[i].Root != files[j].Root {
			return files[i].Root < files[j].Root
		}
		return files[i].Path < files[j].Path
	})
}
