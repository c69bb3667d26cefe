package builtins

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/sdk/jqorder"
)

// jqFiles are added to the fixture root for the jq tests. Object keys are written sorted: gojq
// always prints keys sorted, jq in input order (see TestJqDiffersFromRealJq).
var jqFiles = map[string]string{
	"obj.json":    `{"a":1,"b":[1,2,{"c":"x"}],"n":null,"s":"h\u00e9llo"}` + "\n",
	"stream.json": "1 2\n\"three\"\n[4]\n{\"five\":5}\nnull\nfalse\n",
	"bad.json":    "{\"a\":1,}\n",
	"h1.json":     "[1,",
	"h2.json":     "2]\n",
	"one.json":    "1",
	"two.json":    "2",
	"empty.json":  "",
	"-":           "\"dash\"\n",
	"prog.jq":     ".a # a comment\n| . + 1\n",
}

// jqRoot is a fixture root holding jqFiles too.
func jqRoot(t *testing.T) *testEnv {
	t.Helper()
	te := fixture(t)
	for p, body := range jqFiles {
		if err := os.WriteFile(filepath.Join(te.dir, p), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return te
}

const (
	// jqOrdered has members out of sorted order at every level.
	jqOrdered = `{"b":1,"a":2,"c":{"z":1,"y":[{"q":1,"p":2}]}}`
	jqObj     = `{"a":1,"b":[1,2,{"c":"x"}],"n":null,"s":"héllo 😀"}`
	jqStream  = "1 2\n\"three\"\n[4]\n{\"five\":5}\nnull\nfalse\n"
)

// TestJqMatchesRealJq compares stdout and the exit status with the host's jq in the same root
// (jq never writes files, so one root serves every case). The cases were checked against jq
// 1.6; where jq 1.6 and gojq or jq 1.7 differ, the case is in TestJqDiffersFromRealJq instead.
func TestJqMatchesRealJq(t *testing.T) {
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("no jq on this host")
	}
	te := jqRoot(t)
	cases := []gnuCase{
		// Output flags and their combinations.
		{jqObj, []string{"jq", "."}}, {jqObj, []string{"jq"}}, {jqObj, []string{"jq", "-c", "."}}, {jqObj, []string{"jq", ".s"}},
		{jqObj, []string{"jq", "-r", ".s"}}, {jqObj, []string{"jq", "-rc", ".b"}}, {jqObj, []string{"jq", "-j", ".b[]"}},
		{jqObj, []string{"jq", "-a", "."}}, {jqObj, []string{"jq", "-a", "-c", ".s"}}, {jqObj, []string{"jq", "-ra", ".s"}},
		{jqObj, []string{"jq", "-S", "."}}, {jqObj, []string{"jq", "-cS", "."}}, {jqObj, []string{"jq", "--tab", "."}},
		{jqObj, []string{"jq", "--indent", "0", "."}}, {jqObj, []string{"jq", "--indent", "1", "."}},
		{jqObj, []string{"jq", "--indent", "7", ".b"}}, {jqObj, []string{"jq", "--indent", "-1", "."}},
		{jqObj, []string{"jq", "--indent", "8", "."}}, {jqObj, []string{"jq", "--indent"}}, {jqObj, []string{"jq", "-c", "--tab", "."}},
		{jqObj, []string{"jq", "--tab", "-c", "."}}, {jqObj, []string{"jq", "-c", "--indent", "3", "."}},
		{jqObj, []string{"jq", "--indent", "3", "-c", "."}}, {jqObj, []string{"jq", "--tab", "--indent", "3", "."}},
		{jqObj, []string{"jq", "--indent", "3", "--tab", "."}}, {jqObj, []string{"jq", "--raw-output", "--compact-output", ".b"}},
		{jqObj, []string{"jq", "--join-output", ".s"}}, {jqObj, []string{"jq", "--ascii-output", ".s"}},
		{jqObj, []string{"jq", "--sort-keys", "-c", "."}}, {jqObj, []string{"jq", "-ec", ".n"}}, {`"é" 1`, []string{"jq", "-rja", "."}},
		{"", []string{"jq", "-n", "1"}}, {"", []string{"jq", "-nr", `"a\tb"`}}, {"", []string{"jq", "-rn", `"x","y"`}},
		{"", []string{"jq", "-nrc", "[1]"}}, {"", []string{"jq", "-nrj", `"a",1,"b"`}}, {"", []string{"jq", "-n", "-r", "-j", "1,2"}},
		{"", []string{"jq", "-nc", `[1,{"a":[]}]`}}, {"", []string{"jq", "-n", "{}"}}, {"", []string{"jq", "-n", "[]"}},
		{`{"a":{"b":1,"c":[2,null]}}`, []string{"jq", "-c", "[leaf_paths]"}}, {"", []string{"jq", "-nc", "def leaf_paths: 7; leaf_paths"}},
		{"\"a\xffb\"", []string{"jq", "."}}, {"\"a\xffb\"", []string{"jq", "-a", "."}}, {`"\\ufffd"`, []string{"jq", "."}},
		{"", []string{"jq", "-n", `{"a":{},"b":[],"c":[{}]}`}}, {"", []string{"jq", "-n", `"\u007f\u0000\u001f\"\\"`}},
		{"", []string{"jq", "-n", "0.1+0.2, 3.0+0, 1.5e300*1, 1e1000, -1e1000, 100, 123456789012, 1/3"}}, {"", []string{"jq", "-n", "1", "--"}},
		{"", []string{"jq", "--null-input", "--exit-status", "false"}},
		{"", []string{"jq", "-nc", "$ARGS", "--arg", "b", "1", "--argjson", "a", `{"z":1,"y":2}`}},
		{"", []string{"jq", "-nc", "$ARGS.named", "--arg", "zeta", "1", "--arg", "alpha", "2", "--arg", "mid", "3"}},
		{"", []string{"jq", "-n", ""}}, {"", []string{"jq", "-n", " # only a comment\n\t"}}, {jqObj, []string{"jq", "-c", ""}},
		// -f: the first operand is the file holding the filter, wherever -f stands.
		{jqObj, []string{"jq", "-f", "prog.jq"}}, {jqObj, []string{"jq", "-cf", "prog.jq"}}, {"", []string{"jq", "-n", "--from-file", "prog.jq"}},
		{"", []string{"jq", "-f", "prog.jq", "obj.json"}}, {"", []string{"jq", "prog.jq", "-f", "obj.json"}}, {"", []string{"jq", "-nf", "missing.jq"}},
		// Objects read and passed through unchanged keep their member order (jq_order.go).
		{`{"b":1,"a":{"d":1,"c":2},"a":{"z":[{"y":0,"x":1}],"w":2}}`, []string{"jq", "."}},
		{`{"z":1,"y":{"x":2,"w":3}} {"k":[{"m":1,"l":2}],"j":0}`, []string{"jq", "-c", ".y // .k[0]"}},
		{`[{"id":2,"b":"x","a":1},{"id":1,"b":"y","a":0}]`, []string{"jq", "-c", "sort_by(.id)[], map(select(.a > 0))"}},
		{`{"z":1,"y":2}`, []string{"jq", "-cs", "."}}, {`{"z":1,"y":2}`, []string{"jq", "-c", "[., .]"}},
		{"", []string{"jq", "-nc", "--argjson", "v", `{"q":1,"p":[{"s":1,"r":2}]}`, "$v, $v.p"}},
		{`{"z":1,"y":2}`, []string{"jq", "-S", "-c", "."}}, {`{"z":1,"y":2}`, []string{"jq", "--tab", "."}},
		{`{"b":1,"a":2,"c":{"z":0,"y":1}}`, []string{"jq", "-c", `to_entries, keys_unsorted, keys, (.c|to_entries[]|"\(.key)=\(.value)")`}},
		{`[5,6]`, []string{"jq", "-c", "to_entries, keys_unsorted"}}, {`3`, []string{"jq", "-c", "keys_unsorted"}},
		{"", []string{"jq", "-nc", `def to_entries: "mine"; {a:1}|to_entries`}},
		{`{"b":1,"a":2,"c":null}`, []string{"jq", "-c", `with_entries(select(.value != null)), with_entries(.value |= tostring), (to_entries|from_entries), with_entries(.key |= ascii_upcase)`}},
		{`[{"key":"z","value":1},{"name":"x","value":3},{"key":"z","value":4}]`, []string{"jq", "-c", "from_entries"}},
		{"", []string{"jq", "-nc", `{b: 1, a: 2} | to_entries | sort_by(.key) | from_entries`}},
		{`[]`, []string{"jq", "-c", "from_entries"}}, {`[{"key":1,"value":2}]`, []string{"jq", "-c", "from_entries"}},
		{`{"b":{"y":1,"x":2},"a":1}`, []string{"jq", "-c", "with_entries(.)"}},
		// Objects the filter changes, adds, merges or deletes from keep their members' places,
		// new members go last; iterations, paths and tojson follow the member order (derive.go).
		{`{"b":1,"a":{"d":1,"c":2}}`, []string{"jq", "-c", ".c = 3"}}, {"", []string{"jq", "-nc", "{z: 1} + {a: 2}"}},
		{"", []string{"jq", "-nc", `{b: 1, a: 2} | to_entries | sort_by(.key) | map({(.key): .value}) | add`}},
		{"", []string{"jq", "-nc", "$ARGS", "--args", "a"}}, {"", []string{"jq", "-nc", "$ARGS", "--arg", "b", "1", "--arg", "a", "2", "--args", "x"}},
		{jqOrdered, []string{"jq", "-c", `.[], map_values(.), walk(.), del(.b), . + {d: 3}, [paths], [leaf_paths], [paths(type == "number")]`}},
		{jqOrdered, []string{"jq", "-c", `tostream, (.b |= . + 1), (.x = 1), (.c.y[0].r = 5), (. * {c: {x: {d: 1}}}), (.c += {w: 1})`}},
		{jqOrdered, []string{"jq", "-c", `tojson, "v=\(.)", @json, tostring, (tojson | fromjson), setpath(["c", "n"]; 1), delpaths([["c", "z"]])`}},
		{jqOrdered, []string{"jq", "-c", `[..], map(.), with_entries(.value |= tostring), reduce ("k", "j", "i") as $k (.; .[$k] = 1)`}},
		{jqOrdered, []string{"jq", "-c", `(.c.y[] |= (.o = 1)), [.[]?], del(.c.y[0].q), (.[] |= 1), [.c[]], del(.. | .q?), (.a += 1), (.c.y += [3])`}},
		{jqOrdered, []string{"jq", "-c", `reduce range(3) as $i ({}; . + {("k\($i)"): $i}), [.[] | numbers], (.c | add), ([.c, {p: 0}] | add)`}},
		{jqOrdered, []string{"jq", "-c", `.c.y[0] | (.q, .p) = 9`}}, {jqOrdered, []string{"jq", "-c", `.c.y[0] | .[] += 1, (.[] //= 3), (to_entries | map(.value) | add)`}},
		{jqOrdered, []string{"jq", "-c", `to_entries | map(select(.key != "a")) | from_entries | .new = {y: 1, x: 2}`}},
		{jqOrdered, []string{"jq", "-c", `.c.y[0] as $p | {k: 1} | . + $p, ($p + .), (. * $p | .k = 0)`}},
		{jqOrdered, []string{"jq", "-c", `[.[] | objects | keys_unsorted], (.c.y | map(.p = 0)), (.c | del(.z) | .z = 0)`}},
		{jqOrdered, []string{"jq", "-r", `.c.y[0] | to_entries[] | "\(.key)=\(.value)"`}}, {jqOrdered, []string{"jq", "-r", `.c.y[0] | .[] | tostring`}},
		{jqOrdered, []string{"jq", ".c.y[0].s = \"x\" | .c"}}, {jqOrdered, []string{"jq", "-c", "[.[] | .. | numbers]"}},
		{"", []string{"jq", "-nc", `{} | .b = 1 | .a = 2 | .["c"] = 3 | del(.b) | .b = 4`}}, {"", []string{"jq", "-nc", `[{b: 1}, {a: 2}] | add`}},
		{"", []string{"jq", "-nc", `{b: {d: 1}} * {a: 1, b: {c: 2}}`}}, {"", []string{"jq", "-nc", `[1, 2] | .[1] = 5, (.[] += 1), add`}},
		{"", []string{"jq", "-nc", `"a" + "b", 1 + 2, [1] + [2], null + {b: 1, a: 2}, ({b: 1, a: 2} | .a += 1)`}},
		{"", []string{"jq", "-nc", `{b: 1, a: 2} | .[] = 0, (to_entries[] |= .), with_entries(.key |= "k" + .)`}},
		{`{"z":1,"y":2}`, []string{"jq", "-c", `.x = 1 | .w = .y | tojson | fromjson | .v = 0`}}, {`[{"b":1,"a":2}]`, []string{"jq", "-c", `.[0].c = 3, map(.d = 4), (.[] |= del(.b))`}},
		{`[{"name":"b","s":1},{"name":"a","s":2}]`, []string{"jq", "-c", "INDEX(.name), INDEX(.[]; .s)"}},
		{`{"v":3}`, []string{"jq", "-c", `{"k": .v, "\(.v)": 1}, {(.v, 4 | tostring): 0, a: 1}, {a: 1, ("a"): 2, b: 3}`}},
		{"", []string{"jq", "-n", `1 | .[]`}}, {"", []string{"jq", "-n", `1 | .a = 1`}}, {"", []string{"jq", "-nc", `1 | [.[]?]`}},
		{"", []string{"jq", "-nc", `{a: 1} | setpath(["a", "b"]; 1)`}}, {"", []string{"jq", "-nc", `{a: 1} + 1`}},
		// Objects built by a literal whose keys are all written out print in written order.
		{"", []string{"jq", "-nc", "--arg", "n", "x", `{name: $n, count: 2, "a b": [{y: 1, x: 2}], $n}`}},
		{`{"v":3}`, []string{"jq", "-c", `{z: .v, a: {d: 1, c: 2}}`}},
		// Empty and whitespace-only input runs the filter on nothing.
		{"", []string{"jq", "."}}, {"  \n\t", []string{"jq", "."}}, {"", []string{"jq", "-c", "-s", "."}}, {"", []string{"jq", "-R", "."}},
		{"", []string{"jq", "-Rs", "."}}, {"", []string{"jq", "-sn", "."}},
		// Variables and arguments.
		{"", []string{"jq", "-n", "--arg", "x", `va"l`, "$x"}}, {"", []string{"jq", "-nc", "--arg", "x", "1", "--argjson", "y", `{"z":[1]}`, "[$x,$y]"}},
		{"", []string{"jq", "-ncS", "$ARGS", "--args", "a", "b"}}, {"", []string{"jq", "-nc", "--args", "$ARGS.positional", "a", "-"}},
		{"", []string{"jq", "-ncS", "--jsonargs", "$ARGS", "1", `{"a":2}`, "null"}}, {"", []string{"jq", "-nc", "--arg", "k", "v", "$ARGS.named"}},
		{"", []string{"jq", "-ncS", "$ARGS"}}, {"", []string{"jq", "-nc", "--arg", "named", "x", "$named"}},
		{"", []string{"jq", "-nc", "--arg", "named", "x", "--arg", "positional", "y", "[$named, $positional, $ARGS.named]"}},
		{"", []string{"jq", "-nc", "--arg", "x", "1", "--arg", "x", "2", "$x"}}, {"", []string{"jq", "-ncS", "--arg", "ARGS", "x", "$ARGS"}},
		{"", []string{"jq", "-n", "--arg", "x"}}, {"", []string{"jq", "-n", "--arg"}}, {"", []string{"jq", "-n", "--argjson", "x"}},
		{"", []string{"jq", "-n", "--argjson", "x", "{", "$x"}}, {"", []string{"jq", "-n", "--argjson", "x", "1 2", "$x"}},
		{"", []string{"jq", "-nc", "--slurpfile", "s", "stream.json", "$s"}}, {"", []string{"jq", "-n", "--rawfile", "r", "a.txt", "$r"}},
		{"", []string{"jq", "-nc", "--slurpfile", "s", "empty.json", "$s"}}, {"", []string{"jq", "-n", "--slurpfile", "s", "nofile", "$s"}},
		{"", []string{"jq", "-n", "--rawfile", "r", "nofile", "$r"}}, {"", []string{"jq", "-n", "--slurpfile", "s", "bad.json", "$s"}},
		{"", []string{"jq", "-n", "--slurpfile", "s"}}, {"", []string{"jq", "-n", "--rawfile", "r"}}, {"", []string{"jq", "-n", "--rawfile", "r", "sub"}}, {"", []string{"jq", ".", "sub"}},
		{"5", []string{"jq", "-n", "--rawfile", "r", "-", "$r"}}, {"5", []string{"jq", "-nc", "--slurpfile", "s", "-", "$s"}},
		{"", []string{"jq", "-nc", "--rawfile", "r", "nonl.txt", "--slurpfile", "s", "one.json", "$ARGS.named"}},
		// Files in the root, a stream across files, stdin as "-".
		{"", []string{"jq", "-c", ".", "obj.json"}}, {"", []string{"jq", "-c", ".", "stream.json"}},
		{"", []string{"jq", "-c", ".", "obj.json", "stream.json"}}, {"", []string{"jq", "-c", ".", "h1.json", "h2.json"}},
		{"", []string{"jq", "-c", ".", "one.json", "two.json"}}, {"", []string{"jq", "-c", ".", "nofile", "obj.json"}},
		{"", []string{"jq", "-c", ".", "obj.json", "nofile"}}, {"", []string{"jq", ".", "empty.json"}}, {"", []string{"jq", "-c", "-s", ".", "one.json", "two.json", "stream.json"}},
		{"7", []string{"jq", "-c", ".", "obj.json", "-"}}, {"7", []string{"jq", "-c", ".", "./obj.json", "-", "sub/../obj.json"}},
		{"", []string{"jq", "-c", "input_filename", "obj.json", "stream.json"}}, {"", []string{"jq", "-n", "1", "nofile"}}, {"", []string{"jq", "-n", "input_filename"}},
		{"3", []string{"jq", "input_filename"}}, {"", []string{"jq", "-n", "[inputs]|length", "stream.json", "obj.json"}},
		// A stream of values on stdin; input and inputs share it with the program.
		{jqStream, []string{"jq", "-c", "."}}, {jqStream, []string{"jq", "-c", "type"}}, {jqStream, []string{"jq", "-c", "-s", "."}},
		{jqStream, []string{"jq", "-c", "-n", "[inputs]"}}, {jqStream, []string{"jq", "-c", "-n", "input"}},
		{jqStream, []string{"jq", "-c", "[., input]"}}, {jqStream, []string{"jq", "-c", "-n", "first(inputs)"}},
		{jqStream, []string{"jq", "-c", "-n", "[limit(2;inputs)], input"}}, {jqStream, []string{"jq", "-n", "reduce inputs as $x (0; .+1)"}},
		{"1 2", []string{"jq", "-c", "-n", "input, input, input"}}, {"1 2 3", []string{"jq", "input"}},
		{jqStream, []string{"jq", "-c", "-sn", "input"}}, {"[1,2] [3]", []string{"jq", "-c", ".[]"}},
		// Raw input.
		{"", []string{"jq", "-R", ".", "a.txt"}}, {"", []string{"jq", "-R", ".", "nonl.txt"}}, {"", []string{"jq", "-R", ".", "nonl.txt", "a.txt"}},
		{"", []string{"jq", "-Rs", ".", "nonl.txt", "a.txt"}}, {"x\r\ny\n\n", []string{"jq", "-R", "."}}, {"l1\nl2", []string{"jq", "-Rn", "input"}},
		{"l1\nl2\n", []string{"jq", "-Rnc", "[inputs]"}}, {"", []string{"jq", "-Rr", ".", "csv.txt"}},
		{"", []string{"jq", "-Rc", `split(",")`, "csv.txt"}}, {"", []string{"jq", "-Rnc", `[inputs|split(",")|.[1]]`, "csv.txt"}},
		{"é\t1\n", []string{"jq", "-Ra", "."}}, {"a\xffb\xfe\xfdc\n", []string{"jq", "-R", "."}}, {"a\xffb\xfe\xfdc\n", []string{"jq", "-Rr", "."}},
		{"\"a\xffb\xfe\xfdc\"", []string{"jq", "-r", "."}}, {"a\xff", []string{"jq", "-Rs", "."}},
		{"", []string{"jq", "-nr", "$x", "--arg", "x", "a\xffb"}}, {"", []string{"jq", "-nr", "$ARGS.positional[0]", "--args", "\xfe"}}, {"a\nb\n", []string{"jq", "-R", "--raw-input", "-c", "[., input]"}},
		// -e statuses: the last output decides; no output at all is 4.
		{"1", []string{"jq", "-e", "."}}, {"false", []string{"jq", "-e", "."}}, {"null", []string{"jq", "-e", "."}},
		{"1 false", []string{"jq", "-e", "."}}, {"false 1", []string{"jq", "-e", "."}}, {"1", []string{"jq", "-e", "empty"}},
		{"", []string{"jq", "-en", "null"}}, {"", []string{"jq", "-en", "false, 1"}}, {"", []string{"jq", "-en", "1, false"}},
		{"", []string{"jq", "-en", "empty"}}, {"{}", []string{"jq", "-e", ".a"}}, {`1 "a"`, []string{"jq", "-e", ".+1"}},
		{"1", []string{"jq", "--exit-status", ".>0"}},
		// Program errors (5), compile errors (3), halt.
		{"", []string{"jq", "-n", `1, error("x"), 2`}}, {"[1,2]", []string{"jq", ".a"}}, {"", []string{"jq", "-n", "1 +"}},
		{"", []string{"jq", "-n", "$undefined"}}, {"", []string{"jq", "-n", "nosuchfn"}}, {"", []string{"jq", "-n", "{"}},
		{"", []string{"jq", "-n", "try error(\"x\") catch ."}}, {"", []string{"jq", "-n", `"bye\n"|halt_error(3)`}},
		{"", []string{"jq", "-n", `{"a":1}|halt_error`}}, {"", []string{"jq", "-n", "1, halt, 2"}}, {"1 2", []string{"jq", "halt"}},
		{"", []string{"jq", "-n", `"x"|halt_error(0)`}}, {"", []string{"jq", "-n", "input"}}, {"", []string{"jq", "-n", `include "x"; .`}},
		{"", []string{"jq", "-n", `import "x" as x; .`}},
		// Formats and language failing on their input.
		{`{"a":1}`, []string{"jq", "-r", "@sh"}}, {`[1,[2]]`, []string{"jq", "-r", "@csv"}}, {`null`, []string{"jq", "ascii_downcase"}},
		// Unknown options fail before reading anything.
		{"", []string{"jq", "-X", "."}}, {"", []string{"jq", "--bogus", "."}}, {"", []string{"jq", "-nX", "1"}},
		// Values nested past jq's printing depth (256) print its marker there, in every printer.
		{"", []string{"jq", "-n", "reduce range(300) as $i (0; [.])"}}, {"", []string{"jq", "-nc", "reduce range(257) as $i (0; {a: .})"}},
		{"", []string{"jq", "-nS", "reduce range(258) as $i (1; {b: 1, a: [.]})"}}, {"", []string{"jq", "-n", "--tab", "[1, (reduce range(260) as $i (0; [.]))]"}},
		{"", []string{"jq", "-nr", "reduce range(260) as $i (0; [.]) | tojson, tostring, @json, \"\\(.)\""}},
		{"", []string{"jq", "-n", "reduce range(256) as $i (0; [.]) | ., (tojson | length)"}},
	}
	// Formats and a sample of the language run as one program each (the host's jq takes ~15 ms
	// to start): every expression's output, in order, must match.
	batches := []struct {
		flag  string
		exprs []string
	}{
		{"-nr", []string{
			`([1,"a,b","c\"d",null,true,1.5]|@csv)`, `(["a\tb","c\\d","e\nf\rg",1,null,true]|@tsv)`, `("it's"|@sh)`,
			`(["a b","c'd",1,null,false]|@sh)`, `({"a":[1,"x"]}|@json)`, `("a b&c=d/é?~-_."|@uri)`, `("héllo"|@base64)`,
			`("aGVsbG8="|@base64d)`, `("<&'\">"|@html)`, `([1,2]|@text)`, `("x y"|@base64 "v=\(.)")`, `("x y"|@uri "q=\(.)&r=1")`,
			`([[1,2],["a","b"]]|.[]|@csv, @tsv)`, `({"a":"x"}|"v: \(.a) \(1+1)")`, `(["a",1]|@json "j=\(.)")`, `("a\u0000b"|@text)`,
		}},
		{"-nc", []string{
			`([1,2,3] | map(.*2) | add)`, `([3,1,2]|sort)`, `({"a":{"b":[1,{"c":2}]}}|[paths])`, `({"a":1,"b":2}|to_entries)`,
			`({"a":1,"b":2}|with_entries(.value+=1))`, `("a-b-c"|split("-"))`, `("test 123 45"|[match("[0-9]+";"g").string])`,
			`([1,[2,[3]]]|flatten)`, `("2015-03-05T23:51:47Z"|fromdate)`, `(1700000000|todate)`,
			`([{"k":"b","v":1},{"k":"a","v":2},{"k":"b","v":3}]|group_by(.k)|map({k:.[0].k, n:length}))`, `([range(5)]|.[1:3])`,
			`({"a":null}|.a // "d")`, `([1,2]|join(","))`, `("abc"|test("B"; "i"))`, `({"a":1,"b":2}|del(.a))`,
			`({"a":[1,2]}|getpath(["a",1]))`, `("abc"|explode|implode)`, `([1,2]|.[] as $x | $x*10)`,
			`({"a":[{"b":1},{"b":2}]}|.a |= map(select(.b>1)))`, `("x" * 2)`, `("1.5"|tonumber)`, `([1,2]|tojson, (tojson|fromjson))`,
			`[limit(3; repeat(1))]`, `"\(1,2) \(3,4)"`, `({"user":{"name":"ada","tags":["x","y"]}}|.user|"\(.name): \(.tags|join(","))")`,
			`({"a":1}|has("a"), (keys|length))`, `([1,2,3]|indices(2), index(3), (.[1:]|length))`, `("a,b"|ascii_upcase|ltrimstr("A"))`,
			`([{"a":2},{"a":1}]|sort_by(.a), min_by(.a), max_by(.a), unique_by(.a))`, `(reduce range(10) as $i (0; .+$i))`,
			`([foreach range(4) as $i (0; .+$i)])`, `(["a","b"]|to_entries|from_entries)`, `({"a":1}|[tostream])`,
			`("abc"|sub("b";"X"), gsub("[ac]";"Y"))`, `(try error("x") catch .)`, `([.[]?])`, `(null|not)`,
			`({} | .a.b.c = 1)`, `([1,null,2]|map(values))`, `(["b","a"]|sort|reverse)`, `("%41"|@uri)`, `(1,2|tostring)`,
			`(now|type)`, `({"a":1}+{"b":2}|keys)`, `([1,2]-[2])`, `(10/4|floor, sqrt)`, `(infinite|tostring)`,
			`("a1b2"|[scan("[0-9]")])`, `(@base32 "\("hi")"|., @base32d)`, `([1,[2]]|getpath([1,0]), [paths(type=="number")])`,
			`(env|type)`, `($ENV|type)`, `("2015-03-05T23:51:47Z"|strptime("%Y-%m-%dT%H:%M:%SZ")|mktime)`,
			`(1425599507|gmtime|todate)`, `(1425599507|strftime("%A, %B %d, %Y"))`, `({"a":"b"}|with_entries({key:.value,value:.key}))`,
			`(label $out | 1, 2, break $out)`, `(first(range(10;0;-3)), [range(0;10;3)])`, `([1,2,3]|IN(2), any(.>2), all(.>0))`,
			`(getpath(["a"]) // 5)`, `(["a"]|inside(["a","b"]), contains(["a"]))`, `({"a":1}|walk(if type=="number" then .+1 else . end))`,
			`(tojson|fromjson)`, `(@json "\([1])")`, `("a"|test("A";"i"))`, `(1 as $x | 2 as $y | [$x,$y])`, `({"a":1}|to_entries[]|"\(.key)=\(.value)")`,
			`([3,[1]]|tostring)`, `("\u00e9"|utf8bytelength, length)`, `([1,2]|first, last, nth(1))`, `(path(..))`, `([paths] | length)`,
			`(input_filename)`, `([splits("a";null)]?)`, `("a b"|@sh "echo \(.)")`, `(["x",1]|@sh)`, `({"a":{"b":1}}|[..|numbers])`,
		}},
	}
	for _, b := range batches {
		cases = append(cases, gnuCase{"", []string{"jq", b.flag, strings.Join(b.exprs, ",\n")}})
	}
	// The host's jq takes ~15 ms to start, so its runs go in parallel first.
	type result struct {
		out string
		rc  int
		ok  bool
	}
	want := make([]result, len(cases))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2*runtime.NumCPU())
	for i, c := range cases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			out, rc, ok := gnu(t, te.dir, c.stdin, c.argv...)
			want[i] = result{out, rc, ok}
		}()
	}
	wg.Wait()
	for i, c := range cases {
		name := strings.Join(c.argv, " ")
		if len(name) > 60 {
			name = name[:60]
		}
		t.Run(name, func(t *testing.T) {
			w := want[i]
			if !w.ok {
				t.Skip("jq did not run")
			}
			got, errOut, rc := te.run(t, c.stdin, c.argv...)
			if got == w.out && rc == w.rc {
				return
			}
			if j := i - (len(cases) - len(batches)); j >= 0 {
				// Find the expressions of the batch that differ.
				for _, e := range batches[j].exprs {
					wantOut, wantRC, _ := gnu(t, te.dir, "", "jq", batches[j].flag, e)
					if got, errOut, rc := te.run(t, "", "jq", batches[j].flag, e); got != wantOut || rc != wantRC {
						t.Errorf("%s: got (rc %d) %q, want (rc %d) %q; stderr: %s", e, rc, got, wantRC, wantOut, errOut)
					}
				}
				return
			}
			t.Errorf("got (rc %d):\n%q\nwant (rc %d):\n%q\nstderr: %s", rc, got, w.rc, w.out, errOut)
		})
	}
}

// TestJqDiffersFromRealJq pins our behaviour where it differs from the host's jq on purpose:
// gojq's documented differences, jq 1.6 bugs fixed in jq 1.7, and messages on stderr (which
// TestJqMatchesRealJq does not compare). why says which.
func TestJqDiffersFromRealJq(t *testing.T) {
	te := jqRoot(t)
	for _, tc := range []struct {
		stdin  string
		argv   []string
		out    string
		rc     int
		errHas string
		why    string
	}{
		{"", []string{"jq", "-nc", "{z: 1, a: 2}, {a: 3, z: 4}"}, `{"a":2,"z":1}` + "\n" + `{"a":3,"z":4}` + "\n", 0, "",
			"two literals with one key set in two orders: sorted (jq: z,a then a,z)"},
		{"", []string{"jq", "-n", "1e16, 1e20, 1e-7, -0"}, "10000000000000000\n100000000000000000000\n1e-7\n0\n", 0, "",
			"gojq prints numbers in Go's shortest form and has no -0; jq 1.6 uses %.17g (1e+16, 1e-07, -0)"},
		{"[1.0, 1e2, 100000000000000000001]", []string{"jq", "-c", "."}, "[1,100,100000000000000000000]\n", 0, "",
			"input numbers are doubles as in jq 1.6, printed as gojq prints them (jq 1.6: 1e+20)"},
		{"", []string{"jq", "-n", `"x" * 0`}, "\"\"\n", 0, "", `gojq repeats a string 0 times to ""; jq 1.6/1.7 give null`},
		{`"*'()!"`, []string{"jq", "-r", "@uri"}, "%2A%27%28%29%21\n", 0, "",
			"gojq (like jq 1.7) keeps only A-Za-z0-9-_.~ unescaped; jq 1.6 also keeps !*'()"},
		{"", []string{"jq", "-n", "$__loc__"}, "", 3, "compile error", "gojq has no $__loc__"},
		{"", []string{"jq", "-n", `import "m" as m; 1`}, "", 3, "jq modules are not available in the sandbox", "no module path in the sandbox (jq: module not found)"},
		{"", []string{"jq", "-n", `include "m"; 1`}, "", 3, `set "exec": "native"`, "no module path in the sandbox (jq: module not found)"},
		{`"x"`, []string{"jq", "ltrimstr(1)"}, "", 5, "ltrimstr", "gojq rejects a non-string argument; jq passes the input through"},
		{`"a"`, []string{"jq", `test("A"; "x")`}, "", 5, "flag", "gojq has no extended-regex flag x"},
		// Exit statuses.
		{`{"a":1,}`, []string{"jq", "."}, "", 2, "parse error", "invalid JSON exits 2 (jq 1.7); jq 1.6 exits 4"},
		{"1 x", []string{"jq", "-c", "."}, "1\n", 2, "parse error", "values before the error are processed; jq 1.6 exits 4"},
		{"[1,", []string{"jq", "."}, "", 2, "unfinished JSON term", "jq 1.6 exits 4"},
		{"", []string{"jq", ".", "bad.json"}, "", 2, "parse error", "jq 1.6 exits 4"},
		{"", []string{"jq", "-c", ".", "h1.json"}, "", 2, "unfinished JSON term", "jq 1.6 exits 4"},
		{"", []string{"jq", "-c", ".a", "obj.json", "sub/b.txt"}, "1\n", 2, "parse error", "jq 1.6 exits 4"},
		{"1 x", []string{"jq", ".a"}, "", 2, "expected an object", "a parse error outranks a program error; jq 1.6 exits 4"},
		{`1 "a" 2`, []string{"jq", ".+1"}, "2\n3\n", 5, "cannot add",
			"an error on any input exits 5 (jq 1.7); jq 1.6 reports only the last input's status"},
		{"", []string{"jq", "-e", "."}, "", 4, "", "-e with no input: no valid result was ever produced (jq's manual); jq 1.6 exits 0"},
		{"", []string{"jq", "-n", "--jsonargs", "$ARGS", "{"}, "", 2, "Invalid JSON text passed to --jsonargs", "jq 1.6 aborts (SIGABRT)"},
		{"", []string{"jq", "-rna", `"é"`}, "\"\\u00e9\"\n", 0, "", "jq 1.6 crashes on -r -a with -n; with input it prints the same"},
		{"", []string{"jq", "-n", "--", "-1"}, "-1\n", 0, "", "-- ends the options before the filter as in jq 1.7; jq 1.6 wants the filter first"},
		{"", []string{"jq", "-nc", "--args", "--", "$ARGS.positional", "-a", "--b"}, `["-a","--b"]` + "\n", 0, "", "jq 1.7's --"},
		{"", []string{"jq", "-Mn", "1"}, "1\n", 0, "", "-M (monochrome) is accepted; output is never coloured"},
		{"", []string{"jq", "-n", "--unbuffered", "1"}, "1\n", 0, "", "--unbuffered is accepted"},
		// Messages on stderr, jq's wording where the host's is stable.
		{"", []string{"jq", "-n", "--arg", "x"}, "", 2, "jq: --arg takes two parameters (e.g. --arg varname value)", ""},
		{"", []string{"jq", "-n", "--argjson", "x", "{", "$x"}, "", 2, "Invalid JSON text passed to --argjson", ""},
		{"", []string{"jq", "-n", "--slurpfile", "s", "nofile", "$s"}, "", 2, "Could not open nofile: No such file or directory", ""},
		{"", []string{"jq", "-n", "--rawfile", "r", "sub", "$r"}, "", 2, "Is a directory", ""},
		{"", []string{"jq", "-n", "--slurpfile", "s", "bad.json", "$s"}, "", 2, "Bad JSON in --slurpfile s bad.json", ""},
		{"", []string{"jq", "--indent", "8", "."}, "", 2, "--indent takes a number between -1 and 7", ""},
		{"", []string{"jq", ".", "nofile"}, "", 2, "jq: error: Could not open nofile: No such file or directory", ""},
		{"", []string{"jq", "-n", "1 +"}, "", 3, "jq: 1 compile error", ""},
		{"", []string{"jq", "-n", "input"}, "", 5, "No more inputs", "gojq says \"break\""},
		{"", []string{"jq", "-n", `1, error("boom"), 2`}, "1\n", 5, "jq: error (at <unknown>): boom", ""},
		{"[1]", []string{"jq", ".a"}, "", 5, "jq: error (at <stdin>): expected an object", "gojq's wording"},
		{"", []string{"jq", ".a", "stream.json"}, "null\nnull\n", 5, "jq: error (at stream.json):", ""},
		{"", []string{"jq", "-n", `{"a":1}|error`}, "", 5, `jq: error (at <unknown>) (not a string): {"a":1}`, ""},
		{"", []string{"jq", "-n", `"bye\n"|halt_error(3)`}, "", 3, "bye\n", ""},
		{"", []string{"jq", "-n", `{"a":1}|halt_error`}, "", 5, "{\"a\":1}\n", ""},
		{"", []string{"jq", "-n", `{"b":1,"a":2}|error`}, "", 5, `jq: error (at <unknown>) (not a string): {"b":1,"a":2}`, "jq's member order"},
		{"", []string{"jq", "-n", `include "x"; .`}, "", 3, "compile error", "modules cannot be loaded"},
	} {
		out, errOut, rc := te.run(t, tc.stdin, tc.argv...)
		if out != tc.out || rc != tc.rc || !strings.Contains(errOut, tc.errHas) {
			t.Errorf("%q: got rc %d %q, stderr %q; want rc %d %q, stderr with %q (%s)", tc.argv, rc, out, errOut, tc.rc, tc.out, tc.errHas, tc.why)
		}
	}
}

// TestJqEnvironment: $ENV and env see the call's exported variables only, never the host's.
func TestJqEnvironment(t *testing.T) {
	t.Setenv("JQ_HOST_ONLY", "leak")
	te := jqRoot(t)
	for _, tc := range []struct {
		argv []string
		want string
	}{
		{[]string{"jq", "-nc", "$ENV"}, `{"A":"1","B":"2","TMPDIR":"` + te.dir + `"}` + "\n"},
		{[]string{"jq", "-nc", "env"}, `{"A":"1","B":"2","TMPDIR":"` + te.dir + `"}` + "\n"},
		{[]string{"jq", "-nr", "env.A, $ENV.B"}, "1\n2\n"},
		{[]string{"jq", "-n", "$ENV.JQ_HOST_ONLY, env.PATH, env.HOME, $ENV.USER"}, "null\nnull\nnull\nnull\n"},
		{[]string{"jq", "-n", "[env[]] | any(. == \"leak\")"}, "false\n"},
	} {
		out, errOut, rc := te.run(t, "", tc.argv...)
		if out != tc.want || rc != 0 {
			t.Errorf("%q = %q rc %d (%s), want %q", tc.argv, out, rc, errOut, tc.want)
		}
	}
	te.Environ = nil
	if out, errOut, rc := te.run(t, "", "jq", "-nc", "[$ENV, env]"); out != "[{},{}]\n" || rc != 0 {
		t.Errorf("no Environ: %q rc %d (%s)", out, rc, errOut)
	}
}

// TestJqConfinement: file operands, --slurpfile and --rawfile outside the root fail as missing
// files and show nothing of them.
func TestJqConfinement(t *testing.T) {
	te := jqRoot(t)
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret")
	os.WriteFile(secret, []byte(`"SECRET"`+"\n"), 0o644)
	os.Symlink(secret, filepath.Join(te.dir, "planted"))
	os.Symlink(outside, filepath.Join(te.dir, "planteddir"))
	rel, err := filepath.Rel(te.dir, secret)
	if err != nil {
		t.Fatal(err)
	}
	escape := strings.Repeat("../", 12) + strings.TrimPrefix(secret, "/")
	for _, target := range []string{"/etc/passwd", secret, rel, escape, "planted", "planteddir/secret", "sub/../" + rel} {
		for _, tmpl := range [][]string{
			{"jq", ".", "F"}, {"jq", "-R", ".", "F"}, {"jq", "-Rs", ".", "F"}, {"jq", "-s", ".", "F"}, {"jq", "-c", ".", "obj.json", "F"},
			{"jq", "-n", "[inputs]", "F"}, {"jq", "-n", "--rawfile", "v", "F", "$v"}, {"jq", "-n", "--slurpfile", "v", "F", "$v"},
			{"jq", "-n", "--rawfile", "v", "F", "--args", "$v"},
		} {
			argv := make([]string, len(tmpl))
			for i, a := range tmpl {
				argv[i] = strings.ReplaceAll(a, "F", target)
			}
			out, errOut, rc := te.run(t, "", argv...)
			for _, leak := range []string{"SECRET", "root:"} {
				if strings.Contains(out, leak) || strings.Contains(errOut, leak) {
					t.Errorf("%q leaked the file: %q %q", argv, out, errOut)
				}
			}
			if rc == 0 || !strings.Contains(errOut, "No such file or directory") && !strings.Contains(errOut, "Permission denied") {
				t.Errorf("%q: rc %d, stderr %q; want a failure naming the missing file", argv, rc, errOut)
			}
		}
	}
}

// TestJqUnsupportedOptions: options jq has that the builtin does not (colour, modules, --seq,
// --stream, -f) fail clearly before reading input.
func TestJqUnsupportedOptions(t *testing.T) {
	te := jqRoot(t)
	for _, argv := range [][]string{
		{"jq", "-X", "."}, {"jq", "--bogus", "."}, {"jq", "-nZ", "1"}, {"jq", "-C", "."}, {"jq", "--color-output", "."},
		{"jq", "--seq", "."}, {"jq", "--stream", "."},
		{"jq", "-L", "/tmp", "."}, {"jq", "-0", "."}, {"jq", "--raw-output0", "."}, {"jq", "--nul-output", "."}, {"jq", "-h"},
		{"jq", ".", "--bogus"}, {"jq", "-rX", "."},
	} {
		out, errOut, rc := te.run(t, "1", argv...)
		if rc != 2 || out != "" || !strings.HasPrefix(errOut, "jq: unsupported option") {
			t.Errorf("%q: rc %d, stdout %q, stderr %q; want rc 2 and jq: unsupported option", argv, rc, out, errOut)
		}
	}
}

// jsonLines yields left bytes of one JSON line repeated (cut wherever left runs out), without
// holding them.
type jsonLines struct {
	line string
	off  int
	left int64 // <0: endless
}

func (g *jsonLines) Read(p []byte) (int, error) {
	if g.left == 0 {
		return 0, io.EOF
	}
	n := len(p)
	if g.left > 0 {
		n = int(min(int64(n), g.left))
		g.left -= int64(n)
	}
	for i := range n {
		p[i] = g.line[g.off]
		g.off = (g.off + 1) % len(g.line)
	}
	return n, nil
}

// TestJqCancellation: a jq reading an endless stdin, or computing forever, stops promptly
// with a failure status when its context ends. The cases run together.
func TestJqCancellation(t *testing.T) {
	var wg sync.WaitGroup
	for _, tc := range []struct {
		json bool
		argv []string
	}{
		{false, []string{"jq", "-R", "."}}, {false, []string{"jq", "-Rn", "inputs"}}, {false, []string{"jq", "-Rnc", "[inputs]|length"}},
		{true, []string{"jq", "-c", "."}}, {true, []string{"jq", "-n", "inputs"}}, {true, []string{"jq", "-n", "reduce inputs as $x (0; .+1)"}},
		{true, []string{"jq", "-c", "[., input]"}}, {true, []string{"jq", "-n", "reduce range(1e15) as $i (0; .+1)"}},
		{true, []string{"jq", "-n", "[limit(1e12; repeat(1))] | length"}}, {true, []string{"jq", "-c", ".", "-"}},
		// Regular expression searches (issue 27): a quadratic loop of them, one over a long subject.
		{false, []string{"jq", "-n", `"a" * 300000 | [match("(a.*z)*a"; "g")] | length`}},
		{false, []string{"jq", "-n", `"a" * 300000 | gsub("(a.*z)*a"; "b") | length`}},
		{false, []string{"jq", "-n", `"ab" * 30000000 | test("(a|b)*c")`}},
	} {
		wg.Add(1)
		te := jqRoot(t)
		go func() {
			defer wg.Done()
			te.Stdin = endless{}
			if tc.json {
				te.Stdin = &jsonLines{line: `{"a":[1,"x"]}` + "\n", left: -1}
			}
			te.Stdout = &counter{}
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			f, _ := Lookup("jq")
			done := make(chan int, 1)
			start := time.Now()
			go func() { done <- f(ctx, te.Env, tc.argv) }()
			select {
			case rc := <-done:
				if rc == 0 {
					t.Errorf("%q: rc 0 after cancellation", tc.argv)
				}
				if d := time.Since(start); d > hung {
					t.Errorf("%q took %v to stop", tc.argv, d)
				}
				if s := te.errb.String(); s != "" {
					t.Errorf("%q: cancellation printed %q", tc.argv, s)
				}
			case <-time.After(hung):
				t.Errorf("%q did not stop when its context ended", tc.argv)
			}
		}()
	}
	wg.Wait()
}

// raceEnabled reports whether the test binary was built with -race.
func raceEnabled() bool {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "-race" {
				return s.Value == "true"
			}
		}
	}
	return false
}

// TestJqStreamsLargeInput: a 20 MB stream of values or lines is processed a value at a time,
// never held whole. (-s, -Rs, --slurpfile and --rawfile must hold their input by nature.)
func TestJqStreamsLargeInput(t *testing.T) {
	size := 20 << 20
	if raceEnabled() {
		size = 4 << 20 // the race detector makes decoding ~10x slower
	}
	value := `{"id":12345,"name":"` + strings.Repeat("x", 970) + `","tags":["a","b"]}` + "\n" // 1 KB
	text := strings.Repeat("y", 399) + "\n"
	n := size / len(value)
	for _, tc := range []struct {
		line string
		argv []string
		want string
	}{
		{value, []string{"jq", "-c", "select(.id != 12345)"}, ""},
		{value, []string{"jq", "-n", "reduce inputs.id as $x (0; . + 1)"}, fmt.Sprintf("%d\n", n)},
		{text, []string{"jq", "-R", "select(length != 399)"}, ""},
		{text, []string{"jq", "-Rn", "reduce inputs as $l (0; . + 1)"}, fmt.Sprintf("%d\n", size/len(text))},
	} {
		te := jqRoot(t)
		te.Stdin = &jsonLines{line: tc.line, left: int64(size / len(tc.line) * len(tc.line))} // whole lines only
		var out strings.Builder
		te.Stdout = &out
		f, _ := Lookup("jq")
		start := time.Now()
		runtime.GC()
		peak := make(chan uint64)
		stop := make(chan struct{})
		go samplePeakHeap(stop, peak)
		rc := f(context.Background(), te.Env, tc.argv)
		close(stop)
		if rc != 0 || out.String() != tc.want {
			t.Errorf("%q: rc %d, wrote %q, want %q: %s", tc.argv, rc, out.String(), tc.want, te.errb.String())
		}
		if p := <-peak; p > 32<<20 {
			t.Errorf("%q held %d MB of heap streaming %d MB", tc.argv, p>>20, size>>20)
		}
		if d := time.Since(start); d > hung {
			t.Errorf("%q took %v on %d MB", tc.argv, d, size>>20)
		}
	}
}

// TestJqStopsOnWriteError: a reader gone away (a closed pipe) stops jq, even on endless input.
func TestJqStopsOnWriteError(t *testing.T) {
	te := jqRoot(t)
	te.Stdin = endless{}
	te.Stdout = &failingWriter{left: 3}
	f, _ := Lookup("jq")
	done := make(chan int, 1)
	go func() { done <- f(context.Background(), te.Env, []string{"jq", "-R", "."}) }()
	select {
	case rc := <-done:
		if rc != 2 || !strings.Contains(te.errb.String(), "writing output failed") {
			t.Errorf("jq on a failing writer: rc %d, stderr %q", rc, te.errb.String())
		}
	case <-time.After(hung):
		t.Fatal("jq kept going after its output failed")
	}
}

// TestJqOrderBound: member order is kept for at most jqorder.MaxOrderedInput bytes of one input's text;
// a bigger input prints sorted (gojq's order) rather than pinning all of it in memory, and the
// next input is ordered again.
func TestJqOrderBound(t *testing.T) {
	te := jqRoot(t)
	big := `{"z":1,"a":"` + strings.Repeat("x", jqorder.MaxOrderedInput) + `"}`
	out, errOut, rc := te.run(t, `{"z":1,"a":2} `+big+` {"y":1,"b":2}`, "jq", "-c", ".")
	want := `{"z":1,"a":2}` + "\n" + `{"a":"` + strings.Repeat("x", jqorder.MaxOrderedInput) + `","z":1}` + "\n" + `{"y":1,"b":2}` + "\n"
	if rc != 0 || out != want {
		t.Fatalf("rc %d, stderr %q, output (%d bytes) differs from the expected %d bytes: %.80q", rc, errOut, len(out), len(want), out)
	}
}

// TestJqBounds (issue 27): a filter's text is bounded before gojq parses it, and walks of deep
// values and long paths are refused where gojq would recurse past the Go stack; printing strips
// past jq's depth as jq does, however deep the value.
func TestJqBounds(t *testing.T) {
	te := fixture(t)
	for _, c := range []struct {
		filter, out, errPart string
		rc                   int
	}{
		{strings.Repeat("[", 1000000) + strings.Repeat("]", 1000000), "", "longer than 16384 tokens", 3},
		{`reduce range(20000) as $i (0; [.]) | . == .`, "", "deeper than 10000", 5},
		{`reduce range(20000) as $i (0; [.]) | [.] | sort | length`, "", "deeper than 10000", 5},
		{`null | setpath([range(20000) | 0]; 1) | length`, "", "longer than 10000", 5},
		{`reduce range(300000) as $i (0; [.]) | tojson | length`, "543\n", "", 0},
		{`reduce range(300000) as $i (0; {a: .}) | "\(.)" | length`, "1571\n", "", 0},
	} {
		out, errOut, rc := te.run(t, "", "jq", "-n", c.filter)
		if rc != c.rc || out != c.out || !strings.Contains(errOut, c.errPart) {
			t.Errorf("%.60s...: rc %d out %q err %.200q; want rc %d out %q err containing %q", c.filter, rc, out, errOut, c.rc, c.out, c.errPart)
		}
	}
}
