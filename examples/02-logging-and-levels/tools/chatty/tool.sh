#!/usr/bin/env bash
set -euo pipefail
source "${MCP_SDK:?}/tool-sdk.sh"
mcp_log_debug chatty "debug detail"
mcp_log_info chatty "starting"
mcp_log_warn chatty "disk almost full"
echo done
