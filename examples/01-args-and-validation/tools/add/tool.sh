#!/usr/bin/env bash
set -euo pipefail
source "${MCP_SDK:?}/tool-sdk.sh"
a="$(mcp_args_int '.a')"
b="$(mcp_args_int '.b' --default 0 --min -1000 --max 1000)"
mcp_result_success "{\"sum\":$((a + b))}"
