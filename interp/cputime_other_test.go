//go:build !unix

package interp

import "time"

// processCPU is not measured here: FuzzRun keeps only its wall-clock backstop.
func processCPU() (time.Duration, bool) { return 0, false }
