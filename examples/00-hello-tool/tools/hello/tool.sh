#!/usr/bin/env bash
# Greets the caller. Works unchanged under the original framework and under mcp-bash.
set -euo pipefail
source "${MCP_SDK:?}/tool-sdk.sh"

name="$(mcp_args_get '.name // "World"')"
mcp_emit_json "$(mcp_json_obj message "Hello, ${name}!")"
