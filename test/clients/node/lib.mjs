// Shared by the client scripts: where the server is, and the scripted sessions every client runs.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

// serverParams is the stdio command for an example project: the binary under test, wrapped by
// tee-server.sh when MCPBASH_CAPTURE_DIR asks for a recording.
export function serverParams(example) {
  const bin = process.env.MCPBASH_TEST_BINARY;
  const examples = process.env.MCPBASH_EXAMPLES_DIR || path.join(here, '..', '..', '..', 'examples');
  if (!bin) throw new Error('MCPBASH_TEST_BINARY is not set');
  const project = path.join(examples, example);
  const capture = process.env.MCPBASH_CAPTURE_DIR;
  if (capture) return { command: path.join(here, 'tee-server.sh'), args: [capture, bin, project] };
  return { command: bin, args: ['--project-root', project] };
}

// serverURL is the Streamable HTTP endpoint of an example when the test serves the examples over
// HTTP (MCPBASH_HTTP_URLS: a JSON object example → URL), else undefined: the clients use stdio.
export function serverURL(example) {
  const urls = process.env.MCPBASH_HTTP_URLS;
  if (!urls) return undefined;
  const u = JSON.parse(urls)[example];
  if (!u) throw new Error(`MCPBASH_HTTP_URLS has no endpoint for ${example}`);
  return new URL(u);
}

export function check(cond, msg, detail) {
  if (!cond) throw new Error(msg + (detail === undefined ? '' : ': ' + JSON.stringify(detail)));
}

const text = (r, i = 0) => r?.content?.[i]?.text ?? '';

// In the 2026-07-28 era (SDK v2 after a server/discover probe) there is no ping, logging/setLevel
// or resources/subscribe: the log level travels in each request's _meta and change notifications
// come through subscriptions/listen.
const modern = (c) => c.getProtocolEra?.() === 'modern';
const withLevel = (c, params, level) => (modern(c) ? { ...params, _meta: { 'io.modelcontextprotocol/logLevel': level } } : params);
const setLevel = async (c, level) => { if (!modern(c)) await c.setLoggingLevel(level); };
const ping = async (c) => { if (modern(c)) await c.listTools(); else await c.ping(); };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// The adapter hides the differences between SDK generations:
//   connect(example, {elicit}) → client; callTool(client, params, opts); onLog(client, fn).
export async function runSessions(a) {
  const session = async (example, fn, opts = {}) => {
    const started = Date.now();
    const client = await a.connect(example, opts);
    // Progress that arrives in the same read as its response is dispatched after the response
    // retired the token, and the SDK reports it through onerror (typescript-sdk#2580, a client
    // race the server cannot avoid); such progress is counted as received. Any other error the
    // protocol layer reports fails the session.
    //
    // A call the client aborted may still be answered: when the server finished it before the
    // cancellation reached it (a loaded machine delays the client's notification past the
    // tool's end), the answer is already sent, and the spec has the client ignore it. The SDK
    // reports it through onerror as an unknown message ID; one such answer per aborted call
    // (client.aborted) is accepted.
    client.late = [];
    client.aborted = 0;
    const errors = [];
    client.onerror = (e) => {
      const msg = e?.message ?? '';
      const m = /progress notification for an unknown token: (.*)$/s.exec(msg);
      const r = /Received a response for an unknown message ID: (.*)$/s.exec(msg);
      if (m) client.late.push(JSON.parse(m[1]).params);
      else if (r && client.aborted > 0 && JSON.parse(r[1]).result) client.aborted--;
      else errors.push(e);
    };
    try {
      await fn(client);
      check(errors.length === 0, 'protocol errors', errors.map((e) => String(e)));
    } catch (e) {
      e.message = `${example}: ${e.message}`;
      throw e;
    } finally {
      await client.close();
    }
    console.log(`ok ${example} (${Date.now() - started} ms)`);
  };

  await session('00-hello-tool', async (c) => {
    const { tools } = await c.listTools();
    check(tools.length === 1 && tools[0].name === 'hello' && tools[0].outputSchema, 'tools/list', tools);
    // The SDK validates structuredContent against the outputSchema.
    const r = await a.callTool(c, { name: 'hello', arguments: { name: 'Ada' } });
    check(r.structuredContent?.message === 'Hello, Ada!', 'hello result', r);
    await ping(c);
  });

  await session('01-args-and-validation', async (c) => {
    const r = await a.callTool(c, { name: 'add', arguments: { a: 2, b: 40 } });
    check(!r.isError && r.structuredContent?.result?.sum === 42, 'add result', r);
    const bad = await a.callTool(c, { name: 'add', arguments: { a: 'two' } });
    check(bad.isError === true, 'invalid arguments are an isError result', bad);
  });

  await session('02-logging-and-levels', async (c) => {
    const logs = [];
    a.onLog(c, (n) => logs.push(n.params));
    await setLevel(c, 'warning');
    const r = await a.callTool(c, withLevel(c, { name: 'chatty', arguments: {} }, 'warning'));
    check(text(r) === 'done', 'chatty result', r);
    await sleep(50);
    check(logs.length === 1 && logs[0].level === 'warning' && logs[0].logger === 'chatty', 'only warning logs pass the level', logs);
  });

  await session('03-progress-and-cancellation', async (c) => {
    const progress = [];
    const r = await a.callTool(c, { name: 'count', arguments: {} }, { onprogress: (p) => progress.push(p.progress) });
    check(text(r) === 'counted', 'count result', r);
    await sleep(20);
    const all = [...progress, ...c.late.map((p) => p.progress)];
    check(JSON.stringify(all) === '[25,50,75,100]', 'progress notifications', { progress, late: c.late });
  });

  await session('05-resources-basics', async (c) => {
    const { resources } = await c.listResources();
    check(resources.length === 1 && resources[0].name === 'greeting', 'resources/list', resources);
    const r = await c.readResource({ uri: resources[0].uri });
    check(r.contents[0].text === 'Hello from a resource file', 'resources/read', r);
  });

  await session('11-resource-templates', async (c) => {
    const { resourceTemplates } = await c.listResourceTemplates();
    check(resourceTemplates.length === 1 && resourceTemplates[0].uriTemplate === 'file://./resources/logs/{name}.log', 'templates', resourceTemplates);
    const r = await c.readResource({ uri: 'file://./resources/logs/app.log' });
    check(r.contents[0].text === 'started\nready', 'templated read', r);
  });

  await session('07-prompts-basics', async (c) => {
    const { prompts } = await c.listPrompts();
    check(prompts.length === 1 && prompts[0].name === 'welcome' && prompts[0].arguments?.[0]?.name === 'name', 'prompts/list', prompts);
    const p = await c.getPrompt({ name: 'welcome', arguments: { name: 'Ada' } });
    check(p.messages[0].content.text === 'Hello, Ada! Welcome to MCP prompts.', 'prompts/get', p);
  });

  await session('10-completions', async (c) => {
    const r = await c.complete({ ref: { type: 'ref/prompt', name: 'deploy' }, argument: { name: 'target', value: 'pr' } });
    check(JSON.stringify(r.completion.values) === '["production","preview","prod-eu"]', 'completion/complete', r);
  });

  await session('08-elicitation', async (c) => {
    const r = await a.callTool(c, { name: 'confirm', arguments: {} });
    check(text(r) === 'answer: {"action":"accept","content":{"confirmed":true}}', 'confirm result', r);
  }, { elicit: async () => ({ action: 'accept', content: { confirmed: true } }) });

  const asked = [];
  await session('conformance', async (c) => {
    const { tools } = await c.listTools();
    check(tools.length >= 13, 'tools/list', tools.map((t) => t.name));
    const js = tools.find((t) => t.name === 'json_schema_2020_12_tool');
    check(js?.inputSchema?.$defs?.address && js.inputSchema.additionalProperties === false, 'JSON Schema 2020-12 keywords kept', js);

    const types = async (name) => (await a.callTool(c, { name, arguments: {} })).content.map((x) => x.type).join(',');
    check((await types('test_image_content')) === 'image', 'image content');
    check((await types('test_audio_content')) === 'audio', 'audio content');
    check((await types('test_embedded_resource')) === 'resource', 'embedded resource');
    check((await types('test_multiple_content_types')) === 'text,image,resource', 'mixed content');
    const err = await a.callTool(c, { name: 'test_error_handling', arguments: {} });
    check(err.isError === true && text(err).includes('intentionally'), 'error result', err);

    const logs = [];
    a.onLog(c, (n) => logs.push(n.params.data));
    await setLevel(c, 'debug');
    await a.callTool(c, withLevel(c, { name: 'test_tool_with_logging', arguments: {} }, 'debug'));
    await sleep(50);
    check(JSON.stringify(logs) === '["Tool execution started","Tool processing data","Tool execution completed"]', 'logging', logs);

    const progress = [];
    const p = await a.callTool(c, { name: 'test_tool_with_progress', arguments: {} }, { onprogress: (x) => progress.push(`${x.progress}/${x.total}`) });
    await sleep(20);
    progress.push(...c.late.splice(0).map((x) => `${x.progress}/${x.total}`));
    check(text(p).includes('progress') && progress.join(' ') === '0/100 50/100 100/100', 'progress', { p, progress });

    // Cancellation: abort at the first progress notification; the SDK sends
    // notifications/cancelled and rejects, and the session stays usable.
    const ac = new AbortController();
    let cancelled;
    c.aborted++;
    try {
      await a.callTool(c, { name: 'test_tool_with_progress', arguments: {} }, { signal: ac.signal, onprogress: () => ac.abort('test cancel') });
    } catch (e) {
      cancelled = e;
    }
    check(cancelled !== undefined, 'a cancelled call rejects');
    await ping(c);
    await sleep(150); // whatever the cancelled call still sent arrives, and is not an error
    c.late.splice(0);

    const el = await a.callTool(c, { name: 'test_elicitation', arguments: { message: 'Who are you?' } });
    const answer = JSON.parse(text(el).replace(/^User response: /, ''));
    check(answer.action === 'accept' && answer.content?.username === 'ada' && answer.content?.email === 'ada@example.com', 'elicitation', el);
    check(asked[0]?.message === 'Who are you?' && asked[0]?.requestedSchema?.required?.length === 2, 'elicitation request', asked);

    const bin = await c.readResource({ uri: 'test://static-binary' });
    check(bin.contents[0].mimeType === 'image/png' && bin.contents[0].blob?.startsWith('iVBOR'), 'binary resource', bin);
    const tpl = await c.readResource({ uri: 'test://template/123/data' });
    check(JSON.parse(tpl.contents[0].text).id === '123', 'template resource', tpl);

    const pr = await c.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'hello', arg2: 'world' } });
    check(pr.messages[0].content.text === "Prompt with arguments: arg1='hello', arg2='world'", 'prompt with arguments', pr);
    const comp = await c.complete({ ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: 'par' } });
    check(JSON.stringify(comp.completion.values) === '["paris","park","party"]', 'completion', comp);
  }, { elicit: async (req) => { asked.push(req.params); return { action: 'accept', content: { username: 'ada', email: 'ada@example.com' } }; } });

  // Last, so that a failure here leaves every other check run: both SDKs parse the answer to
  // resources/subscribe as an EmptyResult and reject members other than _meta.
  await session('conformance', async (c) => {
    if (modern(c)) {
      const sub = await c.listen({ resourceSubscriptions: ['test://watched-resource'], toolsListChanged: true });
      await sub.close();
      return;
    }
    await c.subscribeResource({ uri: 'test://watched-resource' });
    await c.unsubscribeResource({ uri: 'test://watched-resource' });
  });
}
