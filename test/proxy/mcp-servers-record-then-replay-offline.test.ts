import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, test } from 'vitest';
import { startProxy, type RunningProxy } from 'modeltape/proxy';
import { loadTape } from 'modeltape/recordings';
import { forecastOf, startMcpUpstream, type McpUpstream } from '../support/mcp-upstream.js';
import { fakeOpenAiKey } from '../support/fake-keys.js';
import { tempDir } from '../support/temp-dir.js';

// What an agent does with a tool server: connect, list its tools, call one, read a resource.
async function session(url: string) {
  const client = new Client({ name: 'weather-agent', version: '1.0.0' });
  const logged: unknown[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
    logged.push(notification.params.data);
  });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  try {
    const tools = await client.listTools();
    const weather = await client.callTool({ name: 'get_weather', arguments: { city: 'Paris' } });
    const readme = await client.readResource({ uri: 'docs://readme' });
    return { server: client.getServerVersion(), sessionId: transport.sessionId, tools, weather, readme, logged };
  } finally {
    await client.close();
  }
}

describe('an MCP server over Streamable HTTP through the proxy', () => {
  let upstream: McpUpstream | undefined;
  let proxy: RunningProxy | undefined;
  const dir = tempDir();
  afterEach(async () => {
    await proxy?.close();
    await upstream?.close();
    proxy = upstream = undefined;
  });

  for (const json of [false, true]) {
    test(`records every JSON-RPC call once, then replays the whole session with the server gone (${json ? 'JSON' : 'SSE'} answers)`, async () => {
      upstream = await startMcpUpstream({ json });
      const tape = `${dir}/mcp-${json ? 'json' : 'sse'}.jsonl`;
      const upstreams = { docs: `mcp+${upstream.url}` };
      proxy = await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams });
      const recorded = await session(proxy.urlOf('docs'));
      const recordSummary = await proxy.close();
      expect(recorded.weather.structuredContent).toEqual(forecastOf('Paris'));
      expect(recorded.logged).toEqual(json ? [] : ['looking up Paris']);
      expect(recordSummary).toMatchObject({ recorded: 5, refused: 0, misses: 0, aborted: 0, upstreamErrors: 0 });
      // The client's GET for a server stream was answered by the proxy (405), never forwarded.
      expect(upstream.received.map((request) => request.method)).toEqual(['POST', 'POST', 'POST', 'POST', 'POST']);
      await upstream.close();
      upstream = undefined;

      const { exchanges } = loadTape(tape);
      const calls = exchanges.map(({ exchange }) => {
        const body = exchange.request.body as { json: { method: string } };
        return [exchange.request.path, body.json.method, exchange.response.status, exchange.response.stream?.format ?? 'body'];
      });
      const answer = json ? 'body' : 'sse';
      expect(calls).toEqual([
        ['/', 'initialize', 200, answer],
        // A 202 with no length is kept as the chunks it came in (none).
        ['/', 'notifications/initialized', 202, 'chunks'],
        ['/', 'tools/list', 200, answer],
        ['/', 'tools/call', 200, answer],
        ['/', 'resources/read', 200, answer],
      ]);
      // The call's stream holds the server's log notification and then its result, as sent.
      if (!json) expect(exchanges[3]!.exchange.response.stream!.frames).toHaveLength(2);

      proxy = await startProxy({ tape, mode: 'replay', upstreams });
      const replayed = await session(proxy.urlOf('docs'));
      const replaySummary = await proxy.close();
      // The same answers, and the session id the recording's server gave.
      expect(replayed).toEqual(recorded);
      expect(replaySummary).toMatchObject({ hits: 5, misses: 0, recorded: 0, refused: 0, upstreamConnections: 0 });
    });
  }

  test('a call that was not recorded is a JSON-RPC error naming the nearest recorded call and the differing argument', async () => {
    upstream = await startMcpUpstream();
    const tape = `${dir}/mcp-miss.jsonl`;
    const upstreams = { docs: `mcp+${upstream.url}` };
    proxy = await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams });
    await session(proxy.urlOf('docs'));
    await proxy.close();

    proxy = await startProxy({ tape, mode: 'replay', upstreams });
    const client = new Client({ name: 'weather-agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(proxy.urlOf('docs'))));
    await client.listTools();
    const miss = await client.callTool({ name: 'get_weather', arguments: { city: 'Lyon' } }).then(
      () => undefined,
      (error: Error & { code?: number }) => error,
    );
    await client.close();
    const summary = await proxy.close();
    expect(miss?.constructor.name).toBe('McpError');
    expect(miss?.code).toBe(-32090);
    expect(miss?.message).toContain('Failed to replay tools/call get_weather (POST /docs)');
    expect(miss?.message).toMatch(/nearest at .*mcp-miss\.jsonl:\d+: tools\/call get_weather/);
    expect(miss?.message).toContain('at .params.arguments.city: recorded "Paris" sent "Lyon"');
    expect(summary).toMatchObject({ hits: 3, misses: 1, upstreamConnections: 0 });
    expect(upstream.received).toHaveLength(5);
  });

  test('the credential a client sends its server never reaches the tape, nor does an answer holding a key', async () => {
    upstream = await startMcpUpstream();
    const tape = `${dir}/mcp-secrets.jsonl`;
    const token = fakeOpenAiKey('MCPTOKEN'.repeat(4));
    proxy = await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams: { docs: `mcp+${upstream.url}` } });
    const client = new Client({ name: 'weather-agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(proxy.urlOf('docs')), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    await client.callTool({ name: 'get_weather', arguments: { city: 'Paris' } });
    const leaked = await client.callTool({ name: 'show_config', arguments: {} });
    await client.close();
    const summary = await proxy.close();
    // The server got the token and the client got its answer; the tape got neither.
    expect(upstream.received.every((request) => request.headers.authorization === `Bearer ${token}`)).toBe(true);
    expect(JSON.stringify(leaked.content)).toContain('LEAK');
    expect(summary).toMatchObject({ recorded: 3, refused: 1 });
    const text = readFileSync(tape, 'utf8');
    expect(text).not.toContain('MCPTOKEN');
    expect(text).not.toContain('LEAK');
    expect(summary.problems.join('\n')).not.toContain('LEAK');
  });

  test("a client that numbers its calls otherwise gets each recorded answer under its own request's id", async () => {
    upstream = await startMcpUpstream();
    const tape = `${dir}/mcp-ids.jsonl`;
    const upstreams = { docs: `mcp+${upstream.url}` };
    proxy = await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams });
    const recorded = await session(proxy.urlOf('docs'));
    await proxy.close();

    proxy = await startProxy({ tape, mode: 'replay', upstreams });
    const post = async (message: Record<string, unknown>) => {
      const response = await fetch(proxy!.urlOf('docs'), {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': 'not-the-recorded-session',
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify({ jsonrpc: '2.0', ...message }),
      });
      return { status: response.status, text: await response.text() };
    };
    const called = await post({ id: 'call-77', method: 'tools/call', params: { name: 'get_weather', arguments: { city: 'Paris' } } });
    expect(called.status).toBe(200);
    const events = called.text.split('\n\n').filter((event) => event.includes('data:'));
    const messages = events.map((event) => JSON.parse(/^data: (.*)$/m.exec(event)![1]!) as Record<string, unknown>);
    // The notification keeps its bytes; the response answers this request.
    expect(messages[0]).toMatchObject({ method: 'notifications/message' });
    expect(messages[1]).toMatchObject({ id: 'call-77', result: { structuredContent: recorded.weather.structuredContent } });
    const summary = await proxy.close();
    expect(summary).toMatchObject({ hits: 1, misses: 0, upstreamConnections: 0 });
  });
});
