#!/usr/bin/env bash
# A prompt script may print {"messages":[...]} to return images, resources or several turns.
set -euo pipefail
uri="$(printf '%s' "${MCP_PROMPT_ARGS_JSON:-{\}}" | jq -r '.resourceUri // "test://example-resource"')"
jq -nc --arg uri "$uri" '{messages: [
  {role: "user", content: {type: "resource", resource: {uri: $uri, mimeType: "text/plain", text: "Embedded resource content for testing."}}},
  {role: "user", content: {type: "text", text: "Please process the embedded resource above."}}
]}'
