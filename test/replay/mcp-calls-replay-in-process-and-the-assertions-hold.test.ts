import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, test } from 'vitest';
import {
  ReplayAssertionError,
  assertAllConsumed,
  assertNeverCalledUpstream,
  assertNoDrift,
  assertReplayedStrictly,
  buildDriftReport,
  formatDriftReport,
  openTape,
  type TapeSession,
} from 'modeltape/replay';
import { startMcpUpstream, type McpUpstream } from '../support/mcp-upstream.js';
import { tempDir } from '../support/temp-dir.js';

// A tool server's client as a test builds it: its real URL, and the session's fetch.
async function weather(session: TapeSession, url: string, cities: readonly string[]) {
  const client = new Client({ name: 'weather-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: session.fetch }));
  try {
    const answers = [];
    for (const city of cities) {
      answers.push(
        await client.callTool({ name: 'get_weather', arguments: { city } }).then(
          (result) => result.structuredContent,
          (error: Error) => error.message,
        ),
      );
    }
    return answers;
  } finally {
    await client.close();
  }
}

const failure = (assertion: () => void): string => {
  try {
    assertion();
  } catch (error) {
    if (error instanceof ReplayAssertionError) return error.message;
    throw error;
  }
  return 'passed';
};

describe('MCP calls in a tape session', () => {
  let upstream: McpUpstream | undefined;
  let session: TapeSession | undefined;
  const dir = tempDir();
  afterEach(async () => {
    await session?.close();
    await upstream?.close();
    session = upstream = undefined;
  });

  test('replay in process with no socket, and the assertions prove it: never called, all consumed, no drift', async () => {
    upstream = await startMcpUpstream();
    const url = upstream.url;
    const tape = `${dir}/session.jsonl`;
    const upstreams = { docs: `mcp+${url}` };
    session = await openTape(tape, { mode: 'record', upstreams, allowRecordInCi: true });
    const recorded = await weather(session, url, ['Paris', 'Rome']);
    await session.close();
    await upstream.close();
    upstream = undefined;

    session = await openTape(tape, { upstreams });
    expect(await weather(session, url, ['Paris', 'Rome'])).toEqual(recorded);
    assertReplayedStrictly(session);
    expect(session.summary()).toMatchObject({ hits: 4, misses: 0, upstreamConnections: 0 });
    await session.close();

    // One call fewer: a recording is left unused.
    session = await openTape(tape, { upstreams });
    await weather(session, url, ['Paris']);
    expect(failure(() => assertNeverCalledUpstream(session!))).toBe('passed');
    expect(failure(() => assertAllConsumed(session!))).toMatch(/left recordings unused[\s\S]*POST \/ \(docs\)/);
    await session.close();

    // A changed argument: drift, shown beside the model calls a drift report would hold.
    session = await openTape(tape, { upstreams });
    const answers = await weather(session, url, ['Paris', 'Roma']);
    expect(answers[1]).toContain('MCP error -32090');
    const drifted = failure(() => assertNoDrift(session!));
    expect(drifted).toContain('tools/call get_weather');
    expect(drifted).toContain('at .params.arguments.city: recorded "Rome" sent "Roma"');
    const report = formatDriftReport(buildDriftReport(session.summary(), []));
    expect(report).toContain('MCP tools/call get_weather (docs): 1 drifted');
    expect(report).toContain('at .params.arguments.city: recorded "Rome" sent "Roma"');
  });
});
