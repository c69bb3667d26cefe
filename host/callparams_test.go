package host

import (
	"encoding/json"
	"reflect"
	"testing"
)

// scanAgrees checks callParams.scan against json.Unmarshal on one input: when scan answers,
// it read what json.Unmarshal reads.
func scanAgrees(t *testing.T, in []byte) {
	if !json.Valid(in) {
		return
	}
	var got, want callParams
	if !got.scan(in) {
		return
	}
	if err := json.Unmarshal(in, &want); err != nil {
		t.Fatalf("%q: scan answered, json.Unmarshal: %v", in, err)
	}
	norm := func(p callParams) callParams { // nil and empty raw members print alike
		for _, r := range []*json.RawMessage{&p.Arguments, &p.Meta, &p.TimeoutSecs, &p.InputResponses} {
			if len(*r) == 0 {
				*r = nil
			}
		}
		return p
	}
	if !reflect.DeepEqual(norm(got), norm(want)) {
		t.Fatalf("%q: scan read %+v, json.Unmarshal %+v", in, got, want)
	}
}

func TestCallParamsScan(t *testing.T) {
	for _, in := range []string{
		`{"name":"hello","arguments":{"name":"Ada"}}`,
		`{"NAME":"x","Arguments":[1],"_META":{"progressToken":1},"timeoutsecs":"5"}`,
		`{"name":"a","name":null}`, `{"name":null,"name":"b"}`, `{"requestState":"s","requestState":null}`,
		`{"name":"h\u00e9llo"}`, `{"name":5}`, `{"inputResponses":{"a":1},"requestState":"x"}`, `{}`, `{"ſ":1}`,
	} {
		scanAgrees(t, []byte(in))
	}
	var p callParams
	if !p.scan(json.RawMessage(`{"name":"hello","arguments":{"name":"Ada"}}`)) || p.Name == nil || *p.Name != "hello" || string(p.Arguments) != `{"name":"Ada"}` {
		t.Errorf("the usual call was not read: %+v", p)
	}
}

func FuzzCallParamsScan(f *testing.F) {
	for _, s := range []string{`{"name":"hello","arguments":{"name":"Ada"}}`, `{"Name":"a","NAME":null}`, `{"requestState":"\u0041"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) { scanAgrees(t, in) })
}
