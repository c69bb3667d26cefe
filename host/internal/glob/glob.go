// Package glob matches names against the patterns of the hosting configuration (tool
// scopes, tenant visibility lists): * is any run of characters, ? any one byte.
package glob

// Match matches name against pattern: * is any run of characters (including none), ? any one
// character; everything else matches itself.
func Match(pattern, name string) bool {
	// Iterative matcher with backtracking to the last star: linear in practice, no recursion.
	p, n := 0, 0
	star, mark := -1, 0
	for n < len(name) {
		switch {
		case p < len(pattern) && (pattern[p] == '?' || pattern[p] == name[n]):
			p++
			n++
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, n
			p++
		case star >= 0:
			p = star + 1
			mark++
			n = mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}
