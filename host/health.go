package host

import (
	"context"
	"time"
)

// Health is `mcp-bash health`: the readiness report of the project of o and its exit status
// (0 healthy, 1 unhealthy, 2 misconfigured). The check never writes .registry and counts as
// unhealthy when it takes longer than timeout (0: MCPBASH_HEALTH_TIMEOUT_SECS, 5 s).
func Health(ctx context.Context, o Options, timeout time.Duration) (report map[string]any, status int) {
	misconfigured := func(err error) (map[string]any, int) {
		return map[string]any{"status": "misconfigured", "error": "Error: " + err.Error()}, 2
	}
	set, err := o.settings()
	if err != nil {
		return misconfigured(err)
	}
	if timeout <= 0 {
		timeout = set.HealthTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	set.Registry.ReadOnly = true // health never writes .registry
	p, err := findProject(o, set)
	if err != nil {
		return misconfigured(err)
	}
	srv, err := open(ctx, o, set, p, false, false)
	if err != nil {
		return misconfigured(err)
	}
	defer srv.Close()
	if err := srv.reg.ManualError(); err != nil {
		return misconfigured(err) // the operator's file, not a transient failure
	}
	counts := map[string]int{}
	healthy := true
	for _, st := range srv.RegistryStatus(ctx) {
		counts[string(st.Kind)] = st.Total
		if st.Error != "" {
			healthy = false
		}
	}
	checks := p.Checks()
	projectOK := true
	for _, ok := range checks {
		projectOK = projectOK && ok
	}
	// server.d/health-checks.sh, the original's project checks (mcp_health_check_command).
	hc, hcErr := srv.healthChecks(ctx)
	for _, c := range hc {
		projectOK = projectOK && c.OK
	}
	report = map[string]any{"mode": "full", "jsonTool": "gojq (built in)",
		"tools": counts["tools"], "resources": counts["resources"], "prompts": counts["prompts"], "checks": checks}
	if hc != nil {
		report["healthChecks"] = hc
	}
	if hcErr != nil {
		projectOK = false
		report["error"] = hcErr.Error()
	}
	// projectChecks is the original's summary: "ok" or "failed".
	report["projectChecks"] = "ok"
	if !projectOK {
		report["projectChecks"] = "failed"
	}
	word, status := "ok", 0
	if !healthy || !projectOK || ctx.Err() != nil {
		word, status = "unhealthy", 1
	}
	report["status"] = word
	return report, status
}
