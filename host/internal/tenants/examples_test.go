package tenants

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/mcp-bash/mcp-bash/host/internal/auth"
)

// exampleBlock returns the fenced block that follows `<!-- example: name -->` in a document.
func exampleBlock(t *testing.T, doc, name string) string {
	t.Helper()
	re := regexp.MustCompile("(?s)<!-- example: " + regexp.QuoteMeta(name) + " -->\\s*```[a-z]*\\n(.*?)```")
	m := re.FindStringSubmatch(doc)
	if m == nil {
		t.Fatalf("no example %s", name)
	}
	return m[1]
}

// TestShippedExamples: the tenants and auth files shown in docs/HOSTING.md and shipped in the
// Kubernetes ConfigMap are valid (auth's parser is checked here too, to read them once).
func TestShippedExamples(t *testing.T) {
	md, err := os.ReadFile("../../../docs/HOSTING.md")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Parse([]byte(exampleBlock(t, string(md), "tenants.json"))); err != nil {
		t.Errorf("docs/HOSTING.md tenants.json: %v", err)
	}
	if _, err := auth.ParseConfig([]byte(exampleBlock(t, string(md), "auth.json"))); err != nil {
		t.Errorf("docs/HOSTING.md auth.json: %v", err)
	}
	raw, err := os.ReadFile("../../../deploy/kubernetes/configmap.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cm struct {
		Data map[string]string `json:"data"`
	}
	if err := yaml.Unmarshal(raw, &cm); err != nil {
		t.Fatal(err)
	}
	if _, err := Parse([]byte(cm.Data["tenants.json"])); err != nil {
		t.Errorf("deploy/kubernetes/configmap.yaml tenants.json: %v", err)
	}
	if _, err := auth.ParseConfig([]byte(cm.Data["auth.json"])); err != nil {
		t.Errorf("deploy/kubernetes/configmap.yaml auth.json: %v", err)
	}
	// The error shown in the docs is the one the parser gives.
	_, err = Parse([]byte(`{"version":1,"tenants":{"acme":{"roots":[{"path":"/x","readOnly":true}],"limits":{"timeoutSecs":0}}}}`))
	want := "/tenants/acme/limits/timeoutSecs: "
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v", err)
	}
	shown := "server.d/tenants.json" + strings.TrimPrefix(err.Error(), "tenants file")
	if !strings.Contains(string(md), shown) {
		t.Errorf("docs/HOSTING.md should show the real message: %s", shown)
	}
}
