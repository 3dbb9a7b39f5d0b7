import OpenAI from 'openai';
import { Agent, MCPServerStreamableHttp, OpenAIResponsesModel, run, setTracingDisabled } from '@openai/agents';
import { afterEach, describe, expect, test } from 'vitest';
import { FakeProvider, type FakeServer } from 'modeltape/fake-provider';
import { startProxy, type RunningProxy } from 'modeltape/proxy';
import { loadTape } from 'modeltape/recordings';
import { fakeOpenAiKey } from '../support/fake-keys.js';
import { startMcpUpstream, type McpUpstream } from '../support/mcp-upstream.js';
import { tempDir } from '../support/temp-dir.js';

// The OpenAI Agents SDK's own MCP support: the agent lists the server's tools, the model calls
// one, the SDK calls it on the MCP server, and the model answers with its result.
async function askTheAgent(proxy: RunningProxy, key: string): Promise<string> {
  const docs = new MCPServerStreamableHttp({ url: proxy.urlOf('docs'), name: 'weather' });
  await docs.connect();
  try {
    const agent = new Agent({
      name: 'weather',
      instructions: 'Answer about the weather with the tools you have.',
      model: new OpenAIResponsesModel(new OpenAI({ apiKey: key, baseURL: proxy.baseUrls.openai, maxRetries: 0 }), 'gpt-4o'),
      mcpServers: [docs],
    });
    const result = await run(agent, 'What is the weather in Paris?');
    return String(result.finalOutput);
  } finally {
    await docs.close();
  }
}

describe('an agent that calls a model and an MCP tool', () => {
  let model: FakeServer | undefined;
  let tools: McpUpstream | undefined;
  let proxy: RunningProxy | undefined;
  const dir = tempDir();
  afterEach(async () => {
    await proxy?.close();
    await model?.close();
    await tools?.close();
    proxy = model = tools = undefined;
  });

  test('is recorded once, model and tool on one tape, and replays offline with no connection to either', async () => {
    setTracingDisabled(true);
    // The model: a FakeProvider over HTTP standing in for OpenAI, asked to call the tool, then to answer.
    const fake = new FakeProvider().willCallTool('get_weather', { city: 'Paris' }).willSay('It is 14°C and sunny in Paris.');
    model = await fake.listen();
    tools = await startMcpUpstream();
    const tape = `${dir}/agent.jsonl`;
    const upstreams = { openai: model.url, docs: `mcp+${tools.url}` };
    proxy = await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams });
    const recorded = await askTheAgent(proxy, fakeOpenAiKey());
    const recordSummary = await proxy.close();
    expect(recorded).toBe('It is 14°C and sunny in Paris.');
    expect(recordSummary).toMatchObject({ misses: 0, refused: 0, aborted: 0, upstreamErrors: 0 });
    // The model saw the MCP tool's real result in its second turn.
    expect(fake.asked()[1]!.exchanges[0]).toMatchObject({ name: 'get_weather', result: expect.stringContaining('"city":"Paris"') });
    const onTape = loadTape(tape).exchanges.map(({ exchange }) => exchange.upstream);
    expect(onTape.filter((upstream) => upstream === 'openai')).toHaveLength(2);
    expect(onTape.filter((upstream) => upstream === 'docs').length).toBeGreaterThanOrEqual(4);
    const toolCalls = tools.received.filter((request) => request.body.includes('"tools/call"'));
    expect(toolCalls).toHaveLength(1);
    await Promise.all([model.close(), tools.close()]);
    model = tools = undefined;

    proxy = await startProxy({ tape, mode: 'replay', upstreams });
    const replayed = await askTheAgent(proxy, 'a-different-fake-key');
    const replaySummary = await proxy.close();
    expect(replayed).toBe(recorded);
    expect(replaySummary).toMatchObject({ hits: onTape.length, misses: 0, recorded: 0, upstreamConnections: 0 });
    expect(proxy.engine!.unused()).toEqual([]);
  });
});
