import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, test } from 'vitest';
import { FAKE_MCP_META, FakeMcpServer, ModeltapeError, type FakeMcpServerOptions } from 'modeltape/fake-provider';

const weatherInput = { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1 } }, required: ['city'] };
const forecastOutput = {
  type: 'object',
  properties: { city: { type: 'string' }, tempC: { type: 'number' }, sky: { enum: ['sunny', 'cloudy', 'rain'] } },
  required: ['city', 'tempC', 'sky'],
  additionalProperties: false,
};

function script(slept: number[] = []): FakeMcpServerOptions {
  return {
    name: 'weather',
    tools: {
      get_weather: { description: 'The weather in a city', inputSchema: weatherInput, outputSchema: forecastOutput },
      search_docs: {
        inputSchema: { type: 'object', properties: { query: { type: 'string' } } },
        answers: [{ text: 'first page' }, { text: 'slow page', delayMs: 2500 }],
        answer: (args) => ({ text: `no more results for ${String(args.query)}` }),
      },
      flaky: { answers: [{ error: { code: -32001, message: 'upstream timed out' } }, { isError: true, text: 'quota exhausted' }] },
      bad_output: { outputSchema: forecastOutput, answer: { structuredContent: { city: 'Paris', tempC: 'warm', sky: 'sunny' } } },
    },
    resources: { 'docs://readme': { mimeType: 'text/markdown', text: '# Weather' } },
    prompts: {
      forecast: {
        description: 'Ask for a forecast',
        arguments: [{ name: 'city', required: true }],
        messages: (args) => [{ role: 'user', content: { type: 'text', text: `What is the weather in ${args.city}?` } }],
      },
    },
    sleep: async (milliseconds) => {
      slept.push(milliseconds);
    },
  };
}

const clients: Client[] = [];
const fakes: FakeMcpServer[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(fakes.splice(0).map((fake) => fake.close()));
});

async function connected(fake: FakeMcpServer): Promise<Client> {
  fakes.push(fake);
  const client = new Client({ name: 'agent', version: '1.0.0' });
  clients.push(client);
  await client.connect(await fake.connect());
  return client;
}

describe('FakeMcpServer in process', () => {
  test('lists its tools with their schemas, and says it is a fake', async () => {
    const client = await connected(new FakeMcpServer(script()));
    expect(client.getServerVersion()).toEqual({ name: 'weather', version: '0.0.0-fake', title: 'weather (modeltape FakeMcpServer)' });
    const { tools, _meta } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['get_weather', 'search_docs', 'flaky', 'bad_output']);
    expect(tools[0]).toMatchObject({ inputSchema: weatherInput, outputSchema: forecastOutput, description: 'The weather in a city' });
    expect(tools[1]!.inputSchema).toEqual({ type: 'object', properties: { query: { type: 'string' } } });
    expect(_meta).toEqual({ [FAKE_MCP_META]: true });
  });

  test('answers an unscripted call with a value of the output schema, the same for the same seed', async () => {
    const first = await connected(new FakeMcpServer(script()));
    const second = await connected(new FakeMcpServer(script()));
    const call = { name: 'get_weather', arguments: { city: 'Paris' } };
    const answered = await first.callTool(call);
    expect(answered.isError).toBeUndefined();
    const structured = answered.structuredContent as Record<string, unknown>;
    expect(Object.keys(structured).sort()).toEqual(['city', 'sky', 'tempC']);
    expect(['sunny', 'cloudy', 'rain']).toContain(structured.sky);
    expect(answered.content).toEqual([{ type: 'text', text: JSON.stringify(structured) }]);
    expect(await second.callTool(call)).toEqual(answered);
    // Another seed, another answer.
    const reseeded = await connected(new FakeMcpServer({ ...script(), seed: 7 }));
    expect((await reseeded.callTool(call)).structuredContent).not.toEqual(structured);
  });

  test('refuses arguments its input schema refuses, and an unknown tool, as the SDK server does', async () => {
    const fake = new FakeMcpServer(script());
    const client = await connected(fake);
    const invalid = await client.callTool({ name: 'get_weather', arguments: { city: 42, days: 0 } });
    expect(invalid.isError).toBe(true);
    const text = (invalid.content as Array<{ text: string }>)[0]!.text;
    expect(text).toMatch(/^MCP error -32602: Input validation error: Invalid arguments for tool get_weather:/);
    expect(text).toContain('at .city');
    expect(text).toContain('at .days');
    const unknown = await client.callTool({ name: 'get_wether', arguments: {} });
    expect(unknown).toMatchObject({ isError: true, content: [{ type: 'text', text: 'MCP error -32602: Tool get_wether not found' }] });
    const badOutput = await client.callTool({ name: 'bad_output', arguments: {} });
    expect((badOutput.content as Array<{ text: string }>)[0]!.text).toMatch(
      /Output validation error: Invalid structured content for tool bad_output:\n {2}at \.tempC/,
    );
    expect(fake.toolCalls().map((call) => [call.tool, call.result?.isError])).toEqual([
      ['get_weather', true],
      ['get_wether', true],
      ['bad_output', true],
    ]);
  });

  test('answers scripted calls in order, waits as scripted, then answers the function', async () => {
    const slept: number[] = [];
    const fake = new FakeMcpServer(script(slept));
    const client = await connected(fake);
    const texts: string[] = [];
    for (let call = 0; call < 3; call++) {
      const answer = await client.callTool({ name: 'search_docs', arguments: { query: 'rain' } });
      texts.push((answer.content as Array<{ text: string }>)[0]!.text);
    }
    expect(texts).toEqual(['first page', 'slow page', 'no more results for rain']);
    expect(slept).toEqual([2500]);
    expect(fake.toolCalls('search_docs').map((call) => call.index)).toEqual([0, 1, 2]);
  });

  test('fails as scripted: a protocol error the client raises, then a tool error the model is shown', async () => {
    const fake = new FakeMcpServer(script());
    const client = await connected(fake);
    const error = await client.callTool({ name: 'flaky', arguments: {} }).then(
      () => undefined,
      (caught: Error & { code?: number }) => caught,
    );
    expect(error).toMatchObject({ code: -32001, message: 'MCP error -32001: upstream timed out' });
    expect(await client.callTool({ name: 'flaky', arguments: {} })).toMatchObject({ isError: true, content: [{ type: 'text', text: 'quota exhausted' }] });
    expect(fake.calls().map((call) => [call.method, call.error?.code ?? null])).toEqual([
      ['tools/call', -32001],
      ['tools/call', null],
    ]);
  });

  test('serves resources and prompts, and refuses the ones it does not have', async () => {
    const client = await connected(new FakeMcpServer(script()));
    expect((await client.listResources()).resources).toEqual([{ uri: 'docs://readme', name: 'docs://readme', mimeType: 'text/markdown' }]);
    expect((await client.readResource({ uri: 'docs://readme' })).contents).toEqual([{ uri: 'docs://readme', mimeType: 'text/markdown', text: '# Weather' }]);
    await expect(client.readResource({ uri: 'docs://missing' })).rejects.toMatchObject({ code: -32002, data: { uri: 'docs://missing' } });
    const prompt = await client.getPrompt({ name: 'forecast', arguments: { city: 'Lyon' } });
    expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'What is the weather in Lyon?' } }]);
    await expect(client.getPrompt({ name: 'forecast', arguments: {} })).rejects.toMatchObject({ code: -32602 });
  });

  test('refuses a script MCP could not serve, naming the tool', () => {
    const refused = (options: FakeMcpServerOptions) => {
      try {
        new FakeMcpServer(options);
      } catch (error) {
        return error as ModeltapeError;
      }
      throw new Error('expected a refusal');
    };
    expect(refused({ tools: { 'get weather': {} } }).message).toContain('Invalid tool name "get weather"');
    expect(refused({ tools: { x: { inputSchema: { type: 'string' } } } })).toMatchObject({ code: 'invalid_fake_mcp' });
  });
});

describe('FakeMcpServer over Streamable HTTP and stdio', () => {
  for (const json of [false, true]) {
    test(`serves the official client over HTTP, sessions numbered (${json ? 'JSON' : 'SSE'})`, async () => {
      const fake = new FakeMcpServer(script());
      fakes.push(fake);
      const server = await fake.listen({ json });
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      const client = new Client({ name: 'agent', version: '1.0.0' });
      clients.push(client);
      const transport = new StreamableHTTPClientTransport(new URL(server.url));
      await client.connect(transport);
      expect(transport.sessionId).toBe('fake-mcp-session-1');
      const answer = await client.callTool({ name: 'search_docs', arguments: { query: 'x' } });
      expect(answer.content).toEqual([{ type: 'text', text: 'first page' }]);
      const response = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(response.headers.get('x-modeltape-fake')).not.toBeNull();
    });
  }

  test('serves a client that starts it as a server command over stdio', async () => {
    const client = new Client({ name: 'agent', version: '1.0.0' });
    clients.push(client);
    const script = fileURLToPath(new URL('../support/fake-mcp-stdio.mjs', import.meta.url));
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [script], stderr: 'pipe' }));
    expect(client.getServerVersion()?.title).toBe('calendar (modeltape FakeMcpServer)');
    const answer = await client.callTool({ name: 'next_meeting', arguments: { person: 'Ada' } });
    const structured = answer.structuredContent as { title: string; startsAt: string };
    expect(typeof structured.title).toBe('string');
    expect(Number.isNaN(Date.parse(structured.startsAt))).toBe(false);
    const refused = await client.callTool({ name: 'next_meeting', arguments: { person: 'Ada', extra: 1 } });
    expect(refused.isError).toBe(true);
  });
});
