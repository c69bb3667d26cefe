#!/usr/bin/env bash
# Sends three info log notifications while it runs
set -euo pipefail
source "${MCP_SDK:?}/tool-sdk.sh"
mcp_log_info conformance "Tool execution started"
sleep 0.05
mcp_log_info conformance "Tool processing data"
sleep 0.05
mcp_log_info conformance "Tool execution completed"
echo "Tool with logging executed successfully"
