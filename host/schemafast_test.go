package host

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/mcp-bash/mcp-bash/sdk/jqorder"
)

// fastSchemas have a fast form; each instance is checked against it and against the library.
var fastSchemas = []string{
	`{"type":"object","properties":{"name":{"type":"string","description":"who"}}}`,
	`{"type":"object","required":["message"],"properties":{"message":{"type":"string"}}}`,
	`{"type":"object","properties":{"n":{"type":"integer"},"x":{"type":["number","null"]},"b":{"type":"boolean"}},"additionalProperties":false}`,
	`{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string","minLength":1,"maxLength":3}}},"additionalProperties":{"type":"string"}}`,
	`{"type":"object","properties":{"mode":{"enum":["a","b"]},"any":true,"none":false}}`,
	`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":["object","array"],"items":{"type":"object","required":["id"]}}`,
	`true`,
	`{}`,
}

// TestFastSchemaAgreesWithLibrary: whenever the fast form says valid, the library says valid;
// over instances built to hit every keyword's edges (including integers written as 1.0 and
// 1e2, strings counted in characters, not bytes).
func TestFastSchemaAgreesWithLibrary(t *testing.T) {
	var c schemaCache
	instances := []string{`{}`, `{"name":"Ada"}`, `{"name":5}`, `{"message":"hi"}`, `{"message":null}`, `[]`, `"x"`, `null`, `1`,
		`{"n":1}`, `{"n":1.0}`, `{"n":1e2}`, `{"n":1.5}`, `{"n":"1"}`, `{"x":null}`, `{"x":2.5}`, `{"b":true,"z":1}`,
		`{"tags":["a","bbb"]}`, `{"tags":["","x"]}`, `{"tags":["abcd"]}`, `{"tags":["éèà"]}`, `{"tags":["éèàç"]}`, `{"other":"s"}`, `{"other":1}`,
		`{"mode":"a"}`, `{"mode":"c"}`, `{"mode":1}`, `{"any":[1,{}]}`, `{"none":1}`, `[{"id":1},{"id":2}]`, `[{"id":1},{}]`, `[1]`,
		`{"name":"Ada","name":1}`, `{"message":"\u00e9\ud83d\ude00"}`}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		instances = append(instances, randomJSON(rng, 3))
	}
	for _, s := range fastSchemas {
		sp := c.plan(json.RawMessage(s))
		if sp.err != nil || sp.fast == nil {
			t.Fatalf("%s: err %v fast %v", s, sp.err, sp.fast)
		}
		fastValid := 0
		for _, in := range instances {
			v := jqorder.KeyOrder(nil).Decode([]byte(in), func(n json.Number) any { return n })
			lib, err := c.validate(json.RawMessage(s), json.RawMessage(in))
			if err != nil {
				t.Fatal(err)
			}
			if sp.fast.valid(v) {
				fastValid++
				if len(lib) > 0 {
					t.Errorf("schema %s, instance %s: fast form says valid, the library %v", s, in, lib)
				}
			}
			// The same verdict; the words are the library's own (it lists additional
			// properties in map order, so two of its runs may word one violation
			// differently).
			if got, _ := sp.validateValue(v); (len(got) == 0) != (len(lib) == 0) || len(got) != len(lib) {
				t.Errorf("schema %s, instance %s: %v, want the library's %v", s, in, got, lib)
			}
		}
		if fastValid == 0 {
			t.Errorf("schema %s: the fast form never answered", s)
		}
	}
}

// TestFastSchemaOnlyForKnownKeywords: a schema with any keyword the fast form does not check
// exactly, or of another draft, has no fast form (the library decides alone).
func TestFastSchemaOnlyForKnownKeywords(t *testing.T) {
	for _, s := range []string{
		`{"type":"object","properties":{"n":{"type":"integer","minimum":1}}}`,
		`{"type":"string","format":"email"}`,
		`{"type":"string","pattern":"^a"}`,
		`{"$ref":"#/$defs/x","$defs":{"x":{"type":"string"}}}`,
		`{"anyOf":[{"type":"string"}]}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","items":[{"type":"string"}]}`,
		`{"type":"object","properties":{"a":{"type":"strin"}}}`,
		`{"enum":["a",1]}`,
		`{"minLength":1.5}`,
		`{"type":"object","patternProperties":{"^x":{"type":"string"}}}`,
	} {
		if f := compileFast(json.RawMessage(s)); f != nil {
			t.Errorf("%s has a fast form", s)
		}
	}
}

// randomJSON is a small random JSON value over the names and types the schemas above use.
func randomJSON(rng *rand.Rand, depth int) string {
	names := []string{"name", "message", "n", "x", "b", "tags", "mode", "id", "other", "any", "none"}
	k := rng.IntN(9)
	if depth == 0 && k >= 7 {
		k = rng.IntN(7)
	}
	switch k {
	case 0:
		return "null"
	case 1:
		return []string{"true", "false"}[rng.IntN(2)]
	case 2:
		return []string{"0", "1", "-3", "1.0", "2.5", "1e2", "1e-2", "12345678901234567890"}[rng.IntN(8)]
	case 3, 4:
		return []string{`""`, `"a"`, `"bbb"`, `"abcd"`, `"é"`, `"a"`, `"b"`, `"c"`}[rng.IntN(8)]
	case 5, 6, 7:
		s := "{"
		for i := range rng.IntN(4) {
			if i > 0 {
				s += ","
			}
			s += fmt.Sprintf("%q:%s", names[rng.IntN(len(names))], randomJSON(rng, depth-1))
		}
		return s + "}"
	}
	s := "["
	for i := range rng.IntN(4) {
		if i > 0 {
			s += ","
		}
		s += randomJSON(rng, depth-1)
	}
	return s + "]"
}
