#!/usr/bin/env bash
# bin/tally.wasm is a command like any other in the sandbox: it reads the pipe, writes the
# next one, sees the script's exported variables and sets $?.
source "${MCP_SDK}/tool-sdk.sh"

flags=()
if [[ "$(mcp_args_get '.ignoreCase // false')" == "true" ]]; then
	flags+=(--ignore-case)
fi
mcp_args_get '.words' | tally "${flags[@]}" | jq -c '{counts: ., distinct: (keys | length)}'
