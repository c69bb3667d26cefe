package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

// answerElicitation waits for the server's elicitation/create, checks it, and answers.
func answerElicitation(t *testing.T, c *harness.Client, after int, answer string) harness.Msg {
	t.Helper()
	var req harness.Msg
	c.WaitFor(10*time.Second, "elicitation/create", func(m harness.Msg) bool {
		if m.Method == "elicitation/create" {
			var id int
			json.Unmarshal(m.ID, &id)
			if id > after {
				req = m
				return true
			}
		}
		return false
	})
	if answer != "" {
		c.Send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, answer))
	}
	return req
}

func TestElicitation(t *testing.T) { forEngines(t, testElicitation) }

func testElicitation(t *testing.T, engine string) {
	p := newSecProject(t, nil)
	c := harness.Start(t, harness.Options{Dir: p.root, Env: []string{"MCPBASH_ELICITATION_TIMEOUT=1", "MCPBASH_EXEC=" + engine}})
	c.Initialize("2025-11-25", map[string]any{"elicitation": map[string]any{"form": map[string]any{}, "url": map[string]any{}}})
	last := 0
	for i, tc := range []struct {
		name, script, answer, want string
	}{
		{"accept", `r=$(mcp_elicit_confirm 'Proceed?'); echo "rc=$? $r"`, `{"action":"accept","content":{"confirmed":true}}`, `rc=0 {"action":"accept","content":{"confirmed":true}}`},
		{"decline", `r=$(mcp_elicit_string 'Name?'); echo "rc=$? $r"`, `{"action":"decline"}`, `rc=1 {"action":"decline","content":null}`},
		{"cancel", `r=$(mcp_elicit_choice 'Pick' red green); echo "rc=$? $r"`, `{"action":"cancel"}`, `rc=1 {"action":"cancel","content":null}`},
		{"timeout", `r=$(mcp_elicit 'Wait' '{"type":"object","properties":{}}' 1); echo "rc=$? $r"`, "", `rc=1 {"action":"cancel","content":null}`},
		{"url mode", `r=$(mcp_elicit_url 'Log in' https://example.com/login); echo "rc=$? $r"`, `{"action":"accept"}`, `rc=0 {"action":"accept","content":null}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := fmt.Sprintf(`"e%d"`, i)
			c.Send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"sh","arguments":{"script":%q}}}`, id, tc.script))
			req := answerElicitation(t, c, last, tc.answer)
			json.Unmarshal(req.ID, &last)
			var params struct {
				Mode, Message   string
				RequestedSchema map[string]any
			}
			json.Unmarshal(req.Params, &params)
			if params.Mode == "" || params.Message == "" {
				t.Errorf("request params %s", req.Params)
			}
			if got := strings.TrimSpace(text(c.Response(id))); !strings.HasPrefix(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	// The choice schema is the original's {choice: enum}.
	for _, l := range c.Lines() {
		if strings.Contains(string(l), `"message":"Pick"`) && !strings.Contains(string(l), `"enum":["red","green"]`) {
			t.Errorf("choice schema: %s", l)
		}
	}
}

// Without the capability the helpers decline without asking.
func TestElicitationUnsupported(t *testing.T) { forEngines(t, testElicitationUnsupported) }

func testElicitationUnsupported(t *testing.T, engine string) {
	p := newSecProject(t, nil)
	c := p.start(t, "MCPBASH_EXEC="+engine)
	out := text(sh(t, c, `r=$(mcp_elicit_confirm 'Proceed?'); echo "rc=$? $r"`))
	if strings.TrimSpace(out) != `rc=1 {"action":"decline","content":null}` {
		t.Errorf("got %q", out)
	}
	for _, l := range c.Lines() {
		if strings.Contains(string(l), "elicitation/create") {
			t.Errorf("asked a client without the capability: %s", l)
		}
	}
}

// mcp_sample sends sampling/createMessage and prints the client's result; without the
// capability it fails without asking. Same behaviour in both engines.
func TestSampling(t *testing.T) { forEngines(t, testSampling) }

func testSampling(t *testing.T, engine string) {
	p := newSecProject(t, nil)
	c := harness.Start(t, harness.Options{Dir: p.root, Env: []string{"MCPBASH_EXEC=" + engine}})
	c.Initialize("2025-11-25", map[string]any{"sampling": map[string]any{}})
	c.Send(`{"jsonrpc":"2.0","id":"s1","method":"tools/call","params":{"name":"sh","arguments":{"script":"r=$(mcp_sample --max-tokens 50 --system 'Be brief' 'Say hi'); echo \"rc=$? $r\""}}}`)
	var req harness.Msg
	c.WaitFor(10*time.Second, "sampling/createMessage", func(m harness.Msg) bool {
		if m.Method == "sampling/createMessage" {
			req = m
			return true
		}
		return false
	})
	var params struct {
		Messages []struct {
			Role    string
			Content struct{ Type, Text string }
		}
		SystemPrompt string
		MaxTokens    int
	}
	json.Unmarshal(req.Params, &params)
	if len(params.Messages) != 1 || params.Messages[0].Content.Text != "Say hi" || params.MaxTokens != 50 || params.SystemPrompt != "Be brief" {
		t.Errorf("request %s", req.Params)
	}
	c.Send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"role":"assistant","content":{"type":"text","text":"hi"},"model":"m","stopReason":"endTurn"}}`, req.ID))
	want := `rc=0 {"role":"assistant","content":{"type":"text","text":"hi"},"model":"m","stopReason":"endTurn"}`
	if got := strings.TrimSpace(text(c.Response(`"s1"`))); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	out := text(sh(t, c, `mcp_sample; echo "rc=$?"`))
	if !strings.HasPrefix(out, "rc=2") || !strings.Contains(out, "usage: mcp_sample") {
		t.Errorf("usage: %q", out)
	}

	c2 := p.start(t, "MCPBASH_EXEC="+engine)
	out = text(sh(t, c2, `mcp_sample 'Say hi'; echo "rc=$?"`))
	if !strings.HasPrefix(out, "rc=1") || !strings.Contains(out, "does not support sampling") {
		t.Errorf("without the capability: %q", out)
	}
	for _, l := range c2.Lines() {
		if strings.Contains(string(l), "sampling/createMessage") {
			t.Errorf("asked a client without the capability: %s", l)
		}
	}
}
