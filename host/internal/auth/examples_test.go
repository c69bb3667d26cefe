package auth_test

import (
	"os"
	"regexp"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/mcp-bash/mcp-bash/host/internal/auth"
)

// TestShippedExamples: the auth configurations in docs/HOSTING.md and the Kubernetes
// ConfigMap are valid.
func TestShippedExamples(t *testing.T) {
	md, err := os.ReadFile("../../../docs/HOSTING.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)<!-- example: auth.json -->\\s*```json\\n(.*?)```").FindSubmatch(md)
	if m == nil {
		t.Fatal("no auth.json example in docs/HOSTING.md")
	}
	if _, err := auth.ParseConfig(m[1]); err != nil {
		t.Errorf("docs/HOSTING.md example: %v", err)
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
	if _, err := auth.ParseConfig([]byte(cm.Data["auth.json"])); err != nil {
		t.Errorf("configmap auth.json: %v", err)
	}
}
