#!/usr/bin/env bash
source "${MCP_SDK:?}/tool-sdk.sh"
set +e
cat /etc/passwd 2>/dev/null || echo "cannot read /etc/passwd"
curl -s https://example.com 2>/dev/null || echo "cannot run curl"
echo "home is $HOME, user is $USER, pid is $$"
echo ok > "$TMPDIR/scratch.txt" && echo "scratch is writable"
