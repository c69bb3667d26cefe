package auth

import "time"

// SetRemoteTokenClock replaces the clock of r (tests only).
func SetRemoteTokenClock(r *RemoteToken, now func() time.Time) { r.now = now }
