package sdk

import (
	"context"
	"testing"

	"github.com/mcp-bash/mcp-bash/sdk/jqorder"
)

// BenchmarkFilterRun: the SDK helpers' filters through the cache, as mcp_args_get runs them
// (go test -run '^$' -bench FilterRun ./sdk): the common shapes, and those that call the
// regular expression builtins (compiled for each run with its context), print or join.
func BenchmarkFilterRun(b *testing.B) {
	input := map[string]any{"name": "Ada", "items": []any{"a", "b", "c"}, "n": 3, "s": "hello world, hello jq"}
	for _, filter := range []string{
		`.name // "World"`,
		`.items | length`,
		`.items[] | select(. != "b")`,
		`.items | join(",")`,
		`{a: .n, b: .name} | tojson`,
		`.s | test("wor")`,
		`.s | gsub("hello"; "bye")`,
		`[.s | scan("l+")] | length`,
	} {
		var fc FilterCache
		b.Run(filter, func(b *testing.B) {
			for b.Loop() {
				if _, err := fc.run(context.Background(), filter, input, nil, &jqorder.Printer{}, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
