// TypeScript SDK v1 (@modelcontextprotocol/sdk) drives the scripted sessions over stdio.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { runSessions, serverParams } from './lib.mjs';

await runSessions({
  async connect(example, { elicit }) {
    const client = new Client({ name: 'mcp-bash-sdk-v1', version: '1.0.0' }, { capabilities: elicit ? { elicitation: {} } : {} });
    if (elicit) client.setRequestHandler(ElicitRequestSchema, elicit);
    await client.connect(new StdioClientTransport({ ...serverParams(example), stderr: 'inherit' }));
    return client;
  },
  callTool: (client, params, opts) => client.callTool(params, undefined, opts),
  onLog: (client, fn) => client.setNotificationHandler(LoggingMessageNotificationSchema, fn),
});
