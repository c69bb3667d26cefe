package native

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcp-bash/mcp-bash/sandbox"
)

func TestAccessRecord(t *testing.T) {
	rules := sandbox.ConfineRules{RW: []string{"/p"}, RO: []string{"/p/tools/t"}, Protect: []string{"/p/tools"}}
	for _, tc := range []struct {
		name     string
		confined bool
		net      bool
		stderr   string
		want     []string // "op path allowed" of each entry
	}{
		{"confined", true, false, "cat: /etc/shadow: Permission denied\nbash: /root/.ssh/id: Permission denied\ncat: /etc/shadow: Permission denied\nplain error\n" +
			"ls: cannot open directory '/root': Permission denied\ncp: cannot open '/etc/gshadow' for reading: Permission denied\n" +
			"touch: cannot touch ‘/usr/x’: Permission denied\nls: cannot access '/proc/1/environ': Operation not permitted\nls: cannot access 'rel': Permission denied\n",
			[]string{"grant-rw /p true", "grant-ro /p/tools true", "grant-ro /p/tools/t true", "confine network true", "access /etc/shadow false", "access /root/.ssh/id false",
				"access /root false", "access /etc/gshadow false", "access /usr/x false", "access /proc/1/environ false"}},
		{"network", true, true, "", []string{"grant-rw /p true", "grant-ro /p/tools true", "grant-ro /p/tools/t true", "grant-net network true"}},
		{"unconfined", false, false, "x: /y: Operation not permitted\n", []string{"confine / true", "access /y false"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rules
			r.Net = tc.net
			var rec struct{ Entries []sandbox.Access }
			if err := json.Unmarshal(accessRecord(nil, r, tc.confined, []byte(tc.stderr)), &rec); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range rec.Entries {
				got = append(got, e.Op+" "+e.Path+" "+map[bool]string{true: "true", false: "false"}[e.Allowed])
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("entries\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}
