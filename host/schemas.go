package host

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemaCache compiles JSON Schemas once per distinct document. Schemas come from tool metadata,
// so external references are refused: a `$ref` to file:// or http:// would otherwise make the
// validator read host files or the network.
type schemaCache struct {
	mu sync.Mutex
	m  map[string]*compiled
}

type compiled struct {
	sch *jsonschema.Schema
	err error
}

type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external schema reference %q is not allowed", url)
}

// get returns the compiled schema for raw; 2020-12 is the default draft and `$schema` wins.
func (c *schemaCache) get(raw json.RawMessage) (*jsonschema.Schema, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]*compiled{}
	}
	// Keyed by the schema's text: looking it up costs less than hashing it.
	if e, ok := c.m[string(raw)]; ok {
		return e.sch, e.err
	}
	e := &compiled{}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err == nil {
		comp := jsonschema.NewCompiler()
		comp.DefaultDraft(jsonschema.Draft2020)
		comp.UseLoader(noLoader{})
		const loc = "mem:///schema.json"
		if err = comp.AddResource(loc, doc); err == nil {
			e.sch, err = comp.Compile(loc)
		}
	}
	e.err = err
	if len(c.m) > 4096 { // bounded: metadata churn must not grow memory forever
		clear(c.m)
	}
	c.m[string(raw)] = e
	return e.sch, e.err
}

// validate checks instance against schema and returns every violation as a readable line
// ("/path: message"), sorted; nil when valid.
func (c *schemaCache) validate(schema, instance json.RawMessage) ([]string, error) {
	sch, err := c.get(schema)
	if err != nil {
		return nil, fmt.Errorf("invalid schema: %w", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(instance))
	if err != nil {
		return []string{"value is not valid JSON"}, nil
	}
	return violations(sch.Validate(inst))
}

// validateValue is validate for an instance decoded already, with numbers as json.Number (as
// jsonschema.UnmarshalJSON decodes them, so that the verdict and the violations are the
// same): the schema's fast form answers when it can (fastSchema), else the library.
func (sp *schemaPlan) validateValue(v any) ([]string, error) {
	if sp.err != nil {
		return nil, fmt.Errorf("invalid schema: %w", sp.err)
	}
	if sp.fast != nil && sp.fast.valid(v) {
		return nil, nil
	}
	return violations(sp.sch.Validate(v))
}

// violations words the error of Schema.Validate: every violation as "/path: message",
// sorted; nil when valid.
func violations(err error) ([]string, error) {
	if err == nil {
		return nil, nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil, err
	}
	var out []string
	var walk func(u []jsonschema.OutputUnit)
	walk = func(us []jsonschema.OutputUnit) {
		for _, u := range us {
			if u.Error != nil && len(u.Errors) == 0 {
				loc := u.InstanceLocation
				if loc == "" {
					loc = "/"
				}
				out = append(out, loc+": "+u.Error.String())
			}
			walk(u.Errors)
		}
	}
	root := ve.BasicOutput()
	walk(root.Errors)
	if len(out) == 0 {
		out = append(out, strings.TrimSpace(ve.Error()))
	}
	sort.Strings(out)
	return dedupe(out), nil
}

func dedupe(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}
