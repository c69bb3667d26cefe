package sandbox

// Windows has neither FIFOs in the file system nor these flags: opening never waits for a
// peer, and what is opened is checked after the open (notSpecial, ReadDir).
const (
	oNonblock  = 0
	oDirectory = 0
)
