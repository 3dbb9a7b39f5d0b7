import { writeFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import OpenAI from 'openai';
import { describe, expect, test } from 'vitest';
import { startProxy } from 'modeltape/proxy';
import { runMain } from '../support/cli.js';
import { startMcpUpstream } from '../support/mcp-upstream.js';
import { recordTape } from '../support/record-tape.js';
import { tempDir } from '../support/temp-dir.js';

// A verdict names what really went wrong, not the first rule a run happened to trip.
describe('modeltape run says why it failed', () => {
  const dir = tempDir({ inProject: true });

  test('a chaos fault the client did not retry is named with its tape line, not called an empty run', async () => {
    const tape = `${dir}/chaos.jsonl`;
    await recordTape(tape, async ({ openai }) => {
      await new OpenAI({ apiKey: 'fake-key', baseURL: openai, maxRetries: 0 }).chat.completions.create({
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'hi' }],
      });
    });
    writeFileSync(
      `${dir}/fragile.mjs`,
      `import OpenAI from 'openai';
await new OpenAI({ maxRetries: 0 }).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
`,
    );
    const result = await runMain(['run', '--tape', tape, '--chaos', '3', '--chaos-kinds', 'drop-after-headers', '--', process.execPath, `${dir}/fragile.mjs`]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('the command did not survive a chaos fault: its request was never sent again, so the client did not retry');
    expect(result.stderr).toMatch(/ {4}drop-after-headers at \S*chaos\.jsonl:2 POST \/v1\/chat\/completions \(openai\) \(ordinal 0\)/);
    expect(result.stderr).toContain('maxRetries: 0 turns that off');
    expect(result.stderr).not.toContain('no request reached a tape');
    expect(result.stderr).not.toContain('--allow-empty');
  });

  test('a command that could not start gets its own error and no advice about clients', async () => {
    const result = await runMain(['run', '--', `${dir}/no-such-command`]);
    expect(result.code).toBe(127);
    expect(result.stderr).toContain('could not start');
    expect(result.stderr).not.toContain('no request reached a tape');
    expect(result.stderr).not.toContain('OPENAI_BASE_URL');
  });

  test('an MCP server on the tape replays with no --upstream; an upstream nobody declared is named, with where to declare it, and fails the run', async () => {
    const upstream = await startMcpUpstream({ json: true });
    const tape = `${dir}/mcp.jsonl`;
    const recorder = await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams: { docs: `mcp+${upstream.url}` }, log: () => undefined });
    const connect = async (url: string) => {
      const client = new Client({ name: 'agent', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      try {
        return await client.listTools();
      } finally {
        await client.close();
      }
    };
    const recorded = await connect(recorder.urlOf('docs'));
    await recorder.close();
    await upstream.close();

    writeFileSync(
      `${dir}/agent.mjs`,
      `import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
const client = new Client({ name: 'agent', version: '1.0.0' });
await client.connect(new StreamableHTTPClientTransport(new URL(process.env.MODELTAPE_URL + '/' + process.argv[2])));
console.log(JSON.stringify(await client.listTools()));
await client.close();
`,
    );
    const replayed = await runMain(['run', '--tape', tape, '--', process.execPath, `${dir}/agent.mjs`, 'docs']);
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(JSON.parse(replayed.stdout)).toEqual(recorded);

    const misnamed = await runMain(['run', '--tape', tape, '--', process.execPath, `${dir}/agent.mjs`, 'wiki']);
    expect(misnamed.code).not.toBe(0);
    expect(misnamed.stderr).toContain('No upstream named "wiki"');
    expect(misnamed.stderr).toContain(
      'Declare it with --upstream wiki=URL (an MCP server: --upstream wiki=mcp+URL), or under "upstreams" in modeltape.config.json.',
    );
    expect(misnamed.stderr).toMatch(/\d+ requests? to no upstream/);
    expect(misnamed.stderr).not.toContain('no request reached a tape');
    expect(misnamed.stderr).not.toContain('OPENAI_BASE_URL');
  });
});
