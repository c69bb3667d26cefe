package harness

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// SchemaDir is the copy of the official MCP schemas kept in the repository as test data
// (testdata/mcp-schema: its README says where they come from, LICENSE is their licence).
func SchemaDir() string {
	return filepath.Join(RepoRoot(), "test", "harness", "testdata", "mcp-schema")
}

// RepoRoot is the module root, found from this source file.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// Schemas validates server messages against the official MCP schema of a revision.
type Schemas struct {
	mu   sync.Mutex
	revs map[string]*revision
	dir  string
}

type revision struct {
	defsKey string // "definitions" (draft-07) or "$defs" (2020-12)
	names   map[string]bool
	comp    map[string]*jsonschema.Schema
	c       *jsonschema.Compiler
	url     string
}

// NewSchemas loads schemas from dir lazily, one revision at a time.
func NewSchemas(dir string) *Schemas { return &Schemas{dir: dir, revs: map[string]*revision{}} }

func (s *Schemas) rev(name string) (*revision, error) {
	if r, ok := s.revs[name]; ok {
		return r, nil
	}
	path := filepath.Join(s.dir, name, "schema.json")
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("schema for revision %s: %w", name, err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	m, _ := doc.(map[string]any)
	r := &revision{names: map[string]bool{}, comp: map[string]*jsonschema.Schema{}, url: "file:///mcp-schema/" + name + "/schema.json"}
	r.defsKey = "definitions"
	if _, ok := m["$defs"]; ok {
		r.defsKey = "$defs"
	}
	defs, _ := m[r.defsKey].(map[string]any)
	for k := range defs {
		r.names[k] = true
	}
	r.c = jsonschema.NewCompiler()
	if err := r.c.AddResource(r.url, doc); err != nil {
		return nil, err
	}
	s.revs[name] = r
	return r, nil
}

// Has reports whether a revision defines a type.
func (s *Schemas) Has(rev, def string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.rev(rev)
	return err == nil && r.names[def]
}

// Validate checks v (decoded JSON) against definition def of revision rev.
func (s *Schemas) Validate(rev, def string, v any) error {
	s.mu.Lock()
	r, err := s.rev(rev)
	if err != nil {
		s.mu.Unlock()
		return err
	}
	if !r.names[def] {
		s.mu.Unlock()
		return fmt.Errorf("revision %s has no type %s", rev, def)
	}
	sch, ok := r.comp[def]
	if !ok {
		sch, err = r.c.Compile(r.url + "#/" + r.defsKey + "/" + def)
		if err != nil {
			s.mu.Unlock()
			return fmt.Errorf("compile %s#%s: %w", rev, def, err)
		}
		r.comp[def] = sch
	}
	s.mu.Unlock()
	if err := sch.Validate(v); err != nil {
		return fmt.Errorf("%s %s: %v", rev, def, err)
	}
	return nil
}

// resultTypes maps a request method to the result type of its response.
var resultTypes = map[string]string{
	"initialize":               "InitializeResult",
	"ping":                     "EmptyResult",
	"logging/setLevel":         "EmptyResult",
	"tools/list":               "ListToolsResult",
	"tools/call":               "CallToolResult",
	"resources/list":           "ListResourcesResult",
	"resources/templates/list": "ListResourceTemplatesResult",
	"resources/read":           "ReadResourceResult",
	"resources/subscribe":      "EmptyResult",
	"resources/unsubscribe":    "EmptyResult",
	"prompts/list":             "ListPromptsResult",
	"prompts/get":              "GetPromptResult",
	"completion/complete":      "CompleteResult",
	"server/discover":          "DiscoverResult",
	"subscriptions/listen":     "SubscriptionsListenResult",
	// mcp-bash lifecycle extensions answer {}.
	"shutdown": "EmptyResult",
	"exit":     "EmptyResult",
}

// responseTypes are 2026-07-28's whole-response types, used where a revision defines them: a
// tools/call may answer with an InputRequiredResult instead of a CallToolResult.
var responseTypes = map[string]string{
	"tools/call":               "CallToolResultResponse",
	"prompts/get":              "GetPromptResultResponse",
	"resources/read":           "ReadResourceResultResponse",
	"tools/list":               "ListToolsResultResponse",
	"resources/list":           "ListResourcesResultResponse",
	"resources/templates/list": "ListResourceTemplatesResultResponse",
	"prompts/list":             "ListPromptsResultResponse",
	"completion/complete":      "CompleteResultResponse",
	"server/discover":          "DiscoverResultResponse",
	"subscriptions/listen":     "SubscriptionsListenResultResponse",
}

// errorTypes are the typed error responses of revisions that define them, by code.
var errorTypes = map[string]string{
	"-32020": "HeaderMismatchError",
	"-32021": "MissingRequiredClientCapabilityError",
	"-32022": "UnsupportedProtocolVersionError",
}

// notificationTypes and requestTypes map server-originated methods to their message types.
var notificationTypes = map[string]string{
	"notifications/message":                    "LoggingMessageNotification",
	"notifications/progress":                   "ProgressNotification",
	"notifications/tools/list_changed":         "ToolListChangedNotification",
	"notifications/resources/list_changed":     "ResourceListChangedNotification",
	"notifications/prompts/list_changed":       "PromptListChangedNotification",
	"notifications/resources/updated":          "ResourceUpdatedNotification",
	"notifications/cancelled":                  "CancelledNotification",
	"notifications/subscriptions/acknowledged": "SubscriptionsAcknowledgedNotification",
}

var requestTypes = map[string]string{
	"roots/list":             "ListRootsRequest",
	"elicitation/create":     "ElicitRequest",
	"sampling/createMessage": "CreateMessageRequest",
	"ping":                   "PingRequest",
}

// ValidateServerLine checks one line the server wrote. method is the method of the request a
// response answers ("" when unknown). JSON-RPC 2.0 requires `"id": null` on parse errors and
// invalid requests, which the MCP schemas cannot express; such errors are validated without id.
func (s *Schemas) ValidateServerLine(rev string, line []byte, method string) error {
	if strings.ContainsAny(string(line), "\n\r") {
		return fmt.Errorf("line contains a newline")
	}
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		return fmt.Errorf("not a JSON object: %v", err)
	}
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(string(line)))
	if err != nil {
		return err
	}
	obj := v.(map[string]any)
	_, hasID := obj["id"]
	_, hasMethod := obj["method"]
	_, hasResult := obj["result"]
	errObj, hasError := obj["error"].(map[string]any)
	modern := s.Has(rev, "JSONRPCErrorResponse")
	switch {
	case hasError:
		if obj["id"] == nil {
			code := fmt.Sprint(errObj["code"])
			if code != "-32700" && code != "-32600" {
				return fmt.Errorf("error %s without an id", code)
			}
			if modern {
				delete(obj, "id")
			} else {
				obj["id"] = json.Number("0") // draft-07 revisions require an id
			}
		}
		def := "JSONRPCError"
		if modern {
			def = "JSONRPCErrorResponse"
		}
		if err := s.Validate(rev, def, obj); err != nil {
			return err
		}
		if et, ok := errorTypes[fmt.Sprint(errObj["code"])]; ok && s.Has(rev, et) {
			return s.Validate(rev, et, obj)
		}
		return nil
	case hasResult && hasID:
		def := "JSONRPCResponse"
		if modern {
			def = "JSONRPCResultResponse"
		}
		if err := s.Validate(rev, def, obj); err != nil {
			return err
		}
		if rt, ok := responseTypes[method]; ok && s.Has(rev, rt) {
			return s.Validate(rev, rt, obj)
		}
		rt, ok := resultTypes[method]
		if !ok {
			return fmt.Errorf("response to unknown method %q", method)
		}
		if !s.Has(rev, rt) && s.Has(rev, "ClientRequest") && !s.Has(rev, "InitializeRequest") {
			rt = "Result" // 2026-07-28 dropped EmptyResult's methods; mcp-bash still answers ping
		}
		return s.Validate(rev, rt, obj["result"])
	case hasMethod && hasID:
		meth, _ := obj["method"].(string)
		rt, ok := requestTypes[meth]
		if !ok {
			return fmt.Errorf("unexpected server request %q", meth)
		}
		if err := s.Validate(rev, "JSONRPCRequest", obj); err != nil {
			return err
		}
		return s.Validate(rev, rt, obj)
	case hasMethod:
		meth, _ := obj["method"].(string)
		nt, ok := notificationTypes[meth]
		if !ok {
			return fmt.Errorf("unexpected server notification %q", meth)
		}
		if err := s.Validate(rev, "JSONRPCNotification", obj); err != nil {
			return err
		}
		return s.Validate(rev, nt, obj)
	}
	return fmt.Errorf("neither response, request nor notification")
}
