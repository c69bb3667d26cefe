package harness

// PolicyExample is the original framework's documented server.d/policy.sh (its
// test_tools_policy), gating tool: POLICY_READ_ONLY=1 refuses it (-32602), POLICY_REQUIRE_AUTH=1
// asks for a capability with data (-32600), and POLICY_MAX_TIMEOUT refuses any tool whose
// metadata's timeoutSecs (read with jq) is larger. The hooks' unit tests run it in real bash and
// in the sandbox, the end-to-end tests through the server.
func PolicyExample(tool string) string {
	return `set -euo pipefail
mcp_tools_policy_check() {
	local tool_name="$1"
	local metadata_json="$2"
	if [ "${POLICY_READ_ONLY:-0}" = "1" ] && [ "${tool_name}" = "` + tool + `" ]; then
		mcp_tools_error -32602 "Tool '${tool_name}' disabled by policy"
		return 1
	fi
	if [ "${POLICY_REQUIRE_AUTH:-0}" = "1" ] && [ "${tool_name}" = "` + tool + `" ]; then
		mcp_tools_error -32600 "Capability required" '{"reason":"auth"}'
		return 1
	fi
	if [ "${POLICY_MAX_TIMEOUT:-0}" != "0" ]; then
		local timeout
		timeout="$(printf '%s' "${metadata_json}" | jq -r '.timeoutSecs // 0')"
		if [ "${timeout}" -gt "${POLICY_MAX_TIMEOUT}" ]; then
			mcp_tools_error -32602 "Tool '${tool_name}' exceeds policy timeout" "{\"timeout\":${timeout}}"
			return 1
		fi
	fi
	return 0
}
`
}
