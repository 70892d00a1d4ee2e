// Test helper: a fake model API on 127.0.0.1 for real agent CLIs (the recipe in
// ../shared/recipes/real-ai-clis.md). It speaks two wire formats, streamed as the vendors
// stream them: Anthropic Messages (POST /v1/messages, for Claude Code) and OpenAI Responses
// (POST /v1/responses, for Codex). Its canned reply calls the tool whose name ends with
// `toolSuffix` with `args`, once a request offers that tool and holds no result of it yet; the
// request after that (which carries the tool's result) is answered with a text that quotes the
// result's first line. Every request body is kept, so a test can see what the agent sent.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeModel {
  url: string;
  /** Request bodies, parsed, in order, with their path. */
  requests: { path: string; body: Record<string, unknown> }[];
  /** The tool result texts the agent sent back, in order. */
  results: string[];
  close(): Promise<void>;
}

export const ANSWER_PREFIX = 'From your past sessions:';

export async function startFakeModel(o: { toolSuffix: string; args: Record<string, unknown> }): Promise<FakeModel> {
  const requests: FakeModel['requests'] = [];
  const results: string[] = [];
  const server: Server = createServer((req, res) => {
    void body(req).then((raw) => {
      let parsed: Record<string, unknown> = {};
      try {
        parsed = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
      } catch {
        /* not JSON: kept empty */
      }
      requests.push({ path: req.url ?? '', body: parsed });
      const path = (req.url ?? '').split('?')[0]!;
      if (req.method === 'POST' && path.endsWith('/messages')) return anthropic(parsed, res, o, results);
      if (req.method === 'POST' && path.endsWith('/responses')) return openai(parsed, res, o, results);
      if (req.method === 'GET' && path.endsWith('/models'))
        return json(res, { object: 'list', data: [{ id: 'fake-model', object: 'model' }] });
      json(res, {}, 404);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    results,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

function body(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

function json(res: ServerResponse, v: unknown, status = 200): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(v));
}

const firstLine = (s: string) => s.split('\n').find((l) => l.trim()) ?? '';

function textOfResult(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map((b) => (b && typeof b === 'object' && typeof (b as { text?: unknown }).text === 'string' ? (b as { text: string }).text : ''))
      .join('\n');
  return '';
}

// ---- Anthropic Messages ---------------------------------------------------------------------

function anthropic(
  b: Record<string, unknown>,
  res: ServerResponse,
  o: { toolSuffix: string; args: Record<string, unknown> },
  results: string[],
): void {
  const tools = (Array.isArray(b.tools) ? b.tools : []) as { name?: string }[];
  const tool = tools.find((t) => typeof t.name === 'string' && t.name.endsWith(o.toolSuffix));
  const messages = (Array.isArray(b.messages) ? b.messages : []) as { role: string; content: unknown }[];
  const last = messages[messages.length - 1];
  const result = Array.isArray(last?.content)
    ? (last.content as Record<string, unknown>[]).find((c) => c.type === 'tool_result')
    : undefined;
  // Claude Code 2.x defers MCP tools behind its ToolSearch tool: their names are in the system
  // prompt, and a ToolSearch call "select:<name>" loads one into the next request's tools.
  const texts: string[] = [];
  const walk = (x: unknown): void => {
    if (typeof x === 'string') texts.push(x);
    else if (Array.isArray(x)) x.forEach(walk);
    else if (x && typeof x === 'object') Object.values(x).forEach(walk);
  };
  walk([b.system, b.messages]);
  const deferred = tool ? undefined : new RegExp(`(?:^|\\s)([\\w-]*${o.toolSuffix})\\b`, 'm').exec(texts.join('\n'))?.[1];
  const searched = messages.some(
    (m) =>
      Array.isArray(m.content) && (m.content as Record<string, unknown>[]).some((c) => c.type === 'tool_use' && c.name === 'ToolSearch'),
  );
  let blocks: Record<string, unknown>[];
  let stop: string;
  if (!tool && deferred && !searched && tools.some((t) => t.name === 'ToolSearch')) {
    blocks = [{ type: 'tool_use', id: 'toolu_search', name: 'ToolSearch', input: { query: `select:${deferred}`, max_results: 1 } }];
    stop = 'tool_use';
  } else if (
    result &&
    !(
      tool &&
      !messages.some(
        (m) =>
          Array.isArray(m.content) && (m.content as Record<string, unknown>[]).some((c) => c.type === 'tool_use' && c.name === tool.name),
      )
    )
  ) {
    const t = textOfResult(result.content);
    results.push(t);
    blocks = [{ type: 'text', text: `${ANSWER_PREFIX} ${firstLine(t)}` }];
    stop = 'end_turn';
  } else if (tool) {
    blocks = [{ type: 'tool_use', id: `toolu_${results.length + 1}`, name: tool.name, input: o.args }];
    stop = 'tool_use';
  } else {
    blocks = [{ type: 'text', text: 'Fake title' }];
    stop = 'end_turn';
  }
  const message = {
    id: `msg_${Date.now()}`,
    type: 'message',
    role: 'assistant',
    model: String(b.model ?? 'claude-fake'),
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 5 },
  };
  if (b.stream !== true) return json(res, { ...message, content: blocks, stop_reason: stop });
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (event: string, data: Record<string, unknown>) =>
    res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
  send('message_start', { message: { ...message, content: [], stop_reason: null } });
  blocks.forEach((blk, index) => {
    if (blk.type === 'text') {
      send('content_block_start', { index, content_block: { type: 'text', text: '' } });
      send('content_block_delta', { index, delta: { type: 'text_delta', text: blk.text } });
    } else {
      send('content_block_start', { index, content_block: { ...blk, input: {} } });
      send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(blk.input) } });
    }
    send('content_block_stop', { index });
  });
  send('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 5 } });
  send('message_stop', {});
  res.end();
}

// ---- OpenAI Responses -----------------------------------------------------------------------

function openai(
  b: Record<string, unknown>,
  res: ServerResponse,
  o: { toolSuffix: string; args: Record<string, unknown> },
  results: string[],
): void {
  const tools = (Array.isArray(b.tools) ? b.tools : []) as Record<string, unknown>[];
  // Codex offers an MCP server's tools as one namespace tool ({type: 'namespace', name, tools});
  // a call of one of them names the tool and its namespace.
  const names = tools.flatMap((t): { full: string; name: string; namespace?: string }[] =>
    t.type === 'namespace' && Array.isArray(t.tools)
      ? (t.tools as { name: string }[]).map((x) => ({ full: `${String(t.name)}__${x.name}`, name: x.name, namespace: String(t.name) }))
      : typeof t.name === 'string'
        ? [{ full: t.name, name: t.name }]
        : [],
  );
  const tool = names.find((n) => n.full.endsWith(o.toolSuffix));
  const input = (Array.isArray(b.input) ? b.input : []) as Record<string, unknown>[];
  const output = [...input].reverse().find((i) => i.type === 'function_call_output');
  const called = input.some((i) => i.type === 'function_call');
  const id = `resp_${Date.now()}`;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  let seq = 0;
  const send = (type: string, data: Record<string, unknown>) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`);
  const response = {
    id,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status: 'in_progress',
    model: String(b.model ?? 'fake-model'),
    output: [] as unknown[],
  };
  send('response.created', { response });
  let item: Record<string, unknown>;
  if (output || !tool || called) {
    const t = output ? textOfResult(typeof output.output === 'string' ? output.output : (output.output as unknown)) : '';
    if (output) results.push(t);
    const text = output ? `${ANSWER_PREFIX} ${firstLine(t)}` : 'Nothing to do.';
    item = {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text, annotations: [] }],
    };
    send('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', content: [] } });
    send('response.content_part.added', {
      output_index: 0,
      item_id: 'msg_1',
      content_index: 0,
      part: { type: 'output_text', text: '', annotations: [] },
    });
    send('response.output_text.delta', { output_index: 0, item_id: 'msg_1', content_index: 0, delta: text });
    send('response.output_text.done', { output_index: 0, item_id: 'msg_1', content_index: 0, text });
    send('response.content_part.done', {
      output_index: 0,
      item_id: 'msg_1',
      content_index: 0,
      part: { type: 'output_text', text, annotations: [] },
    });
  } else {
    const args = JSON.stringify(o.args);
    item = {
      id: 'fc_1',
      type: 'function_call',
      status: 'completed',
      call_id: 'call_1',
      name: tool.name,
      ...(tool.namespace ? { namespace: tool.namespace } : {}),
      arguments: args,
    };
    send('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', arguments: '' } });
    send('response.function_call_arguments.delta', { output_index: 0, item_id: 'fc_1', delta: args });
    send('response.function_call_arguments.done', { output_index: 0, item_id: 'fc_1', arguments: args });
  }
  send('response.output_item.done', { output_index: 0, item });
  send('response.completed', {
    response: {
      ...response,
      status: 'completed',
      output: [item],
      usage: {
        input_tokens: 10,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: 5,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 15,
      },
    },
  });
  res.end();
}
