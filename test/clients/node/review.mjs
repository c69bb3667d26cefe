// Review mode through the TypeScript SDK v1 (@modelcontextprotocol/sdk): a tool in review mode
// edits files; the server asks this client's user (elicitation) to approve the change set, and
// the answer decides whether the files change. One session per scenario (REVIEW_SCENARIOS, a
// JSON list of {name, root, answer}); the Go test (clients_test.go, TestReviewTypeScript) checks
// the roots before and after and reads what this script prints: one JSON object of results.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { check } from './lib.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = process.env.MCPBASH_TEST_BINARY;
const project = process.env.REVIEW_PROJECT;
const capture = process.env.MCPBASH_CAPTURE_DIR;
const scenarios = JSON.parse(process.env.REVIEW_SCENARIOS);

const out = {};
for (const sc of scenarios) {
  const client = new Client({ name: 'mcp-bash-review', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  const asked = [];
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    asked.push(req.params);
    switch (sc.answer) {
      case 'decline':
        return { action: 'decline' };
      case 'cancel':
        return { action: 'cancel' };
      case 'no':
        return { action: 'accept', content: { approve: false } };
      case 'conflict':
        // Someone edits a file the call changed while the user reads the question.
        fs.appendFileSync(path.join(sc.root, 'a.txt'), 'edited meanwhile\n');
        return { action: 'accept', content: { approve: true } };
      default:
        return { action: 'accept', content: { approve: true } };
    }
  });
  const env = { ...process.env, MCPBASH_ROOTS: sc.root };
  await client.connect(new StdioClientTransport({ command: path.join(here, 'tee-server.sh'), args: [capture, bin, project], env, stderr: 'inherit' }));
  // A model may send anything as arguments, approval included: it decides nothing.
  const r = await client.callTool({ name: 'edit', arguments: { dir: sc.root, approve: true } });
  check(!r.isError, `${sc.name}: the call failed`, r);
  check(asked.length === 1, `${sc.name}: the user was asked ${asked.length} times`, asked);
  const q = asked[0];
  check(q.requestedSchema?.properties?.approve?.type === 'boolean', `${sc.name}: the question asks for a yes or no`, q);
  check(q.message.includes('a.txt') && q.message.includes('+edited by the tool'), `${sc.name}: the question shows the changes`, q.message);
  const resource = r.content.find((c) => c.type === 'resource');
  check(resource?.resource?.mimeType === 'text/x-diff' && resource.resource.text.includes('+edited by the tool'), `${sc.name}: the result carries the diff`, r.content);
  out[sc.name] = { meta: r._meta['mcpbash/changes'], text: r.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n') };
  await client.close();
}
console.log(JSON.stringify(out));
