#!/usr/bin/env bash
# A prompt script may print {"messages":[...]} to return images, resources or several turns.
set -euo pipefail
png="$(base64 -w0 "${MCPBASH_PROJECT_ROOT:-.}/resources/static-binary.png" 2>/dev/null || base64 -w0 resources/static-binary.png)"
jq -nc --arg png "$png" '{messages: [
  {role: "user", content: {type: "image", data: $png, mimeType: "image/png"}},
  {role: "user", content: {type: "text", text: "Please analyze the image above."}}
]}'
