package sandbox

import (
	"reflect"
	"testing"
)

// TestLimitsWithDefaults: an unset (zero or negative) limit takes its default, a set one stays,
// and MaxBytesWritten alone has no default (0 is no bound).
func TestLimitsWithDefaults(t *testing.T) {
	d := DefaultLimits()
	set := Limits{Timeout: 7, MaxStdoutBytes: 7, MaxStderrBytes: 7, MaxCommands: 7, MaxCallDepth: 7, MaxScriptBytes: 7,
		MaxJobs: 7, MaxOpenFiles: 7, MaxUtilityBytes: 7, MaxBytesWritten: 7}
	neg := Limits{Timeout: -1, MaxStdoutBytes: -1, MaxStderrBytes: -1, MaxCommands: -1, MaxCallDepth: -1,
		MaxScriptBytes: -1, MaxJobs: -1, MaxOpenFiles: -1, MaxUtilityBytes: -1}
	for _, tc := range []struct {
		name    string
		in, out Limits
	}{
		{"zero", Limits{}, d},
		{"negative", neg, d},
		{"set", set, set},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.in.WithDefaults(); got != tc.out {
				t.Errorf("got %+v, want %+v", got, tc.out)
			}
		})
	}
	// Every field but MaxBytesWritten has a default, so a new limit cannot be left out of
	// WithDefaults unnoticed.
	v := reflect.ValueOf(d)
	for i := 0; i < v.NumField(); i++ {
		name := v.Type().Field(i).Name
		if zero := v.Field(i).IsZero(); zero != (name == "MaxBytesWritten") {
			t.Errorf("DefaultLimits().%s zero=%v", name, zero)
		}
	}
}
