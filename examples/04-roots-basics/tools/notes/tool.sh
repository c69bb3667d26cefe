#!/usr/bin/env bash
set -euo pipefail
source "${MCP_SDK:?}/tool-sdk.sh"
echo "roots: $(mcp_roots_count)"
while read -r line; do echo "- $line"; done < "$(mcp_roots_list)/notes.txt"
if cat server.d/server.meta.json >/dev/null 2>&1; then echo "project visible"; else echo "project hidden"; fi
