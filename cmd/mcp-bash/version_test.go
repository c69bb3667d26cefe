package main

import (
	"runtime/debug"
	"testing"
)

func TestResolveBuild(t *testing.T) {
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "-trimpath", Value: "true"}, {Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: rev}, {Key: "vcs.time", Value: "2026-01-02T03:04:05Z"}, {Key: "vcs.modified", Value: modified}}
	}
	const rev = "0123456789abcdef0123456789abcdef01234567"
	for _, tc := range []struct {
		name             string
		stamped, commit  string
		bi               *debug.BuildInfo
		version, wantRev string
		modified         bool
	}{
		{name: "release stamp wins", stamped: "1.2.3", commit: rev, bi: &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, version: "1.2.3", wantRev: rev},
		{name: "stamp from a v tag loses the v", stamped: "v1.2.3", version: "1.2.3"},
		{name: "go install at a tag", bi: &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}}, version: "1.4.0"},
		{name: "go install at a commit", bi: &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20260102030405-0123456789ab"}}, version: "0.0.0-20260102030405-0123456789ab"},
		{name: "go build in a dirty checkout", bi: &debug.BuildInfo{Main: debug.Module{Version: "v1.2.4-0.20260102030405-0123456789ab+dirty"}, Settings: vcs(rev, "true")},
			version: "1.2.4-0.20260102030405-0123456789ab+dirty", wantRev: rev, modified: true},
		{name: "stamp keeps the build's commit", stamped: "1.2.3", bi: &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs(rev, "false")}, version: "1.2.3", wantRev: rev},
		{name: "no version known", bi: &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, version: "devel"},
		{name: "vcs but no module version", bi: &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs(rev, "true")}, version: "devel", wantRev: rev, modified: true},
		{name: "no build info", version: "devel"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := resolveBuild(tc.stamped, tc.commit, tc.bi)
			if b.Version != tc.version || b.Commit != tc.wantRev || b.Modified != tc.modified {
				t.Fatalf("got version %q commit %q modified %v, want %q %q %v", b.Version, b.Commit, b.Modified, tc.version, tc.wantRev, tc.modified)
			}
			if b.Go == "" || b.Platform == "" {
				t.Fatalf("go %q platform %q: both must be known", b.Go, b.Platform)
			}
		})
	}
}
