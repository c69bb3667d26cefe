#!/usr/bin/env bash
# Reports the real shell, kernel and process it runs in, so it needs native mode: the sandbox
# interpreter is not GNU Bash ($BASH and $BASH_VERSINFO are unset), uname describes a virtual
# machine and $$ is always 4242.
set -euo pipefail
source "${MCP_SDK:?}/tool-sdk.sh"

shell="${BASH:-}"
mcp_emit_json "$(mcp_json_obj shell "${shell##*/}" kernel "$(uname -s)" bash "${BASH_VERSINFO[0]}.${BASH_VERSINFO[1]}" pid "$$")"
