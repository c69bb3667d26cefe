package eval

import (
	"slices"
	"sync/atomic"
)

// indexed is a bash indexed array: sparse, ordered by index. Most arrays are dense from 0, so
// keys stays nil until an element is set out of sequence.
type indexed struct {
	// frozen marks storage shared by two scopes (after a copy-on-write clone): whoever
	// writes next copies it first.
	frozen atomic.Bool
	keys   []int64 // nil: the keys are 0..len(vals)-1
	vals   []string
}

func (a *indexed) clone() *indexed {
	b := &indexed{vals: slices.Clone(a.vals)}
	if a.keys != nil {
		b.keys = slices.Clone(a.keys)
	}
	return b
}

func (a *indexed) len() int { return len(a.vals) }

func (a *indexed) key(i int) int64 {
	if a.keys == nil {
		return int64(i)
	}
	return a.keys[i]
}

// max is the highest index set (-1 when empty).
func (a *indexed) max() int64 {
	if len(a.vals) == 0 {
		return -1
	}
	return a.key(len(a.vals) - 1)
}

func (a *indexed) find(k int64) (int, bool) {
	if a.keys == nil {
		if k >= 0 && k < int64(len(a.vals)) {
			return int(k), true
		}
		if k < 0 {
			return 0, false
		}
		return len(a.vals), false
	}
	return slices.BinarySearch(a.keys, k)
}

func (a *indexed) get(k int64) (string, bool) {
	i, ok := a.find(k)
	if !ok {
		return "", false
	}
	return a.vals[i], true
}

func (a *indexed) set(k int64, v string) {
	i, ok := a.find(k)
	if ok {
		a.vals[i] = v
		return
	}
	if a.keys == nil {
		if k == int64(len(a.vals)) {
			a.vals = append(a.vals, v)
			return
		}
		a.keys = make([]int64, len(a.vals), len(a.vals)+1)
		for j := range a.keys {
			a.keys[j] = int64(j)
		}
		i, _ = slices.BinarySearch(a.keys, k)
	}
	a.keys = slices.Insert(a.keys, i, k)
	a.vals = slices.Insert(a.vals, i, v)
}

func (a *indexed) unset(k int64) {
	i, ok := a.find(k)
	if !ok {
		return
	}
	if a.keys == nil {
		if i == len(a.vals)-1 {
			a.vals = a.vals[:i]
			return
		}
		a.keys = make([]int64, len(a.vals))
		for j := range a.keys {
			a.keys[j] = int64(j)
		}
	}
	a.keys = slices.Delete(a.keys, i, i+1)
	a.vals = slices.Delete(a.vals, i, i+1)
}

// assoc is a bash associative array. Bash lists keys in the order of its hash table
// (FNV-1 buckets in ascending order, newest first within a bucket, growing 4x once there are
// two entries per bucket), and scripts see that order, so the table is reproduced exactly.
// Only non-empty buckets are stored.
type assoc struct {
	frozen  atomic.Bool
	m       map[string]string
	buckets map[uint32][]string // each bucket newest first
	nb      uint32
}

const assocBuckets = 1024

func newAssoc() *assoc { return &assoc{m: map[string]string{}, nb: assocBuckets} }

func (a *assoc) clone() *assoc {
	b := &assoc{m: make(map[string]string, len(a.m)), nb: a.nb}
	for k, v := range a.m {
		b.m[k] = v
	}
	if a.buckets != nil {
		b.buckets = make(map[uint32][]string, len(a.buckets))
		for i, bk := range a.buckets {
			b.buckets[i] = slices.Clone(bk)
		}
	}
	return b
}

func bashHash(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h *= 16777619
		h ^= uint32(s[i])
	}
	return h
}

func (a *assoc) len() int { return len(a.m) }

func (a *assoc) get(k string) (string, bool) {
	v, ok := a.m[k]
	return v, ok
}

func (a *assoc) set(k, v string) {
	if _, ok := a.m[k]; ok {
		a.m[k] = v
		return
	}
	if a.buckets == nil {
		a.buckets = map[uint32][]string{}
	}
	if uint64(len(a.m)) >= uint64(a.nb)*2 {
		a.grow()
	}
	b := bashHash(k) & (a.nb - 1)
	a.buckets[b] = slices.Insert(a.buckets[b], 0, k)
	a.m[k] = v
}

func (a *assoc) grow() {
	nb := a.nb * 4
	if nb == 0 {
		return
	}
	old := a.sortedBuckets()
	next := make(map[uint32][]string, len(a.m))
	for _, i := range old {
		for _, k := range a.buckets[i] {
			j := bashHash(k) & (nb - 1)
			next[j] = slices.Insert(next[j], 0, k)
		}
	}
	a.buckets, a.nb = next, nb
}

func (a *assoc) sortedBuckets() []uint32 {
	ids := make([]uint32, 0, len(a.buckets))
	for i := range a.buckets {
		ids = append(ids, i)
	}
	slices.Sort(ids)
	return ids
}

func (a *assoc) unset(k string) {
	if _, ok := a.m[k]; !ok {
		return
	}
	delete(a.m, k)
	b := bashHash(k) & (a.nb - 1)
	bk := a.buckets[b]
	if i := slices.Index(bk, k); i >= 0 {
		bk = slices.Delete(bk, i, i+1)
	}
	if len(bk) == 0 {
		delete(a.buckets, b)
	} else {
		a.buckets[b] = bk
	}
}

// keys lists the keys in bash's order.
func (a *assoc) keys() []string {
	out := make([]string, 0, len(a.m))
	for _, i := range a.sortedBuckets() {
		out = append(out, a.buckets[i]...)
	}
	return out
}
