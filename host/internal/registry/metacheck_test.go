package registry

import (
	"fmt"
	"strings"
	"testing"
)

func TestCheckToolMeta(t *testing.T) {
	for _, tc := range []struct {
		name, meta string
		want       []string // "line:col message" prefixes, in order
	}{
		{"valid", `{"name":"x","description":"d","inputSchema":{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},"timeoutSecs":"30","exec":"native","sandbox":{},"icons":[]}`, nil},
		{"timeout zero is the original's", `{"timeoutSecs":0}`, nil},
		{"trailing comma", "{\"name\": \"x\",\n \"description\": \"d\",\n}\n", []string{"3:2 invalid JSON: invalid character '}'"}},
		{"not an object", `[1]`, []string{"1:1 the file must be a JSON object ({...}), not an array"}},
		{"empty", ``, []string{"1:1 invalid JSON: unexpected end of JSON input"}},
		{"wrong types", "{\"name\": \"t\",\n \"description\": 5,\n \"inputSchema\": {\"type\": \"objekt\", \"properties\": []}}",
			[]string{`2:2 "description" must be a string, not a number`, `3:2 inputSchema.type must be "object", not "objekt"`, `3:2 inputSchema.properties must be an object (one schema per argument), not an array`}},
		{"schema not an object", `{"arguments":"none","outputSchema":[]}`, []string{`1:2 "arguments" must be a JSON Schema object, not a string`, `1:21 "outputSchema" must be a JSON Schema object, not an array`}},
		{"required not a list", `{"inputSchema":{"required":"a"}}`, []string{`1:2 inputSchema.required must be an array of names, not a string`}},
		{"exec", `{"exec":"bash"}`, []string{`1:2 "exec" must be "sandbox" or "native", not "bash"`}},
		{"writeMode", `{"writeMode":"later"}`, []string{`1:2 "writeMode" must be "direct" or "review", not "later" (the tool runs in review mode until it is fixed)`}},
		{"writeMode type", `{"writeMode":true}`, []string{`1:2 "writeMode" must be a string, not a boolean`}},
		{"name not a string", `{"name":["x"]}`, []string{`1:2 "name" must be a string, not an array`}},
		{"timeout", `{"timeoutSecs":"soon"}`, []string{`1:2 "timeoutSecs" must be a whole number of seconds, not "soon" (it is ignored)`}},
		{"containers", `{"annotations":"ro","icons":{}}`, []string{`1:2 "annotations" must be an object, not a string`, `1:21 "icons" must be an array, not an object`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := CheckToolMeta([]byte(tc.meta))
			if len(got) != len(tc.want) {
				t.Fatalf("got %+v, want %d problems", got, len(tc.want))
			}
			for i, p := range got {
				s := fmt.Sprintf("%d:%d %s", p.Line, p.Col, p.Message)
				if !strings.HasPrefix(s, tc.want[i]) || p.Fix == "" {
					t.Errorf("problem %d: %q (fix %q), want %q", i, s, p.Fix, tc.want[i])
				}
			}
		})
	}
}
