#!/usr/bin/env bash
# Returns simple text content
set -euo pipefail
source "${MCP_SDK:?}/tool-sdk.sh"
printf '%s\n' '{"content":[{"type":"text","text":"This is a simple text response for testing."}],"isError":false}'
