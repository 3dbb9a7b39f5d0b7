import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, test } from 'vitest';
import { WebSocket } from 'ws';
import { formatSummary, startProxy, summaryFailed, type ProxyOptions, type RunningProxy } from 'modeltape/proxy';
import { runMain } from '../support/cli.js';
import { fakeOpenAiKey } from '../support/fake-keys.js';
import { startRealtimeUpstream, type RealtimeUpstream } from '../support/realtime-upstream.js';
import { tempDir } from '../support/temp-dir.js';

// A client event of 4 KiB, over a 2 KiB request body limit.
const LIMIT = 2048;
const tooLarge = JSON.stringify({
  type: 'conversation.item.create',
  item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'x'.repeat(4096) }] },
});

// Opens a session, waits for session.created, sends the large event: how the socket was closed.
async function sendTooLarge(url: string): Promise<number> {
  const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/realtime?model=gpt-realtime`, { headers: { authorization: `Bearer ${fakeOpenAiKey()}` } });
  const closed = new Promise<number>((resolve) => socket.once('close', resolve));
  await new Promise((resolve) => socket.once('message', resolve));
  socket.send(tooLarge);
  return closed;
}

describe('a Realtime client frame over the request body limit', () => {
  let upstream: RealtimeUpstream | undefined;
  let proxy: RunningProxy | undefined;
  const dir = tempDir({ inProject: true });
  afterEach(async () => {
    await proxy?.close();
    await upstream?.close();
    proxy = upstream = undefined;
  });

  // A tape of a session's opening (session.created), recorded from the stand-in.
  async function recordOpening(tape: string): Promise<void> {
    upstream = await startRealtimeUpstream();
    const recorder = await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams: { openai: upstream.url }, log: () => undefined });
    const socket = new WebSocket(`${recorder.baseUrls.openai.replace(/^http/, 'ws')}/realtime?model=gpt-realtime`, {
      headers: { authorization: `Bearer ${fakeOpenAiKey()}` },
    });
    await new Promise((resolve) => socket.once('message', resolve));
    socket.close();
    await new Promise((resolve) => socket.once('close', resolve));
    await recorder.close();
  }

  async function check(options: ProxyOptions): Promise<void> {
    proxy = await startProxy({ ...options, limits: { requestBodyBytes: LIMIT }, log: () => undefined });
    expect(await sendTooLarge(proxy.baseUrls.openai)).toBe(1009);
    const summary = await proxy.close();
    proxy = undefined;
    // Counted as a request body over the limit is over HTTP (a 413): refused, and the run fails.
    expect(summary.refused).toBe(1);
    expect(summaryFailed(summary)).toBe(true);
    expect(formatSummary(summary)).toContain(
      `Refused WS /v1/realtime (openai): its body is over the ${LIMIT} bytes limit of a request, so it was not read and the session was closed with 1009 (message too big).`,
    );
    expect(formatSummary(summary)).toContain('--max-request-body');
  }

  test('live (record): the session is closed with 1009, and the frame is refused and counted', async () => {
    upstream = await startRealtimeUpstream();
    await check({ tape: `${dir}/record.jsonl`, mode: 'record', allowRecordInCi: true, upstreams: { openai: upstream.url } });
    // Nothing of it reached the upstream.
    expect(upstream.received).toEqual([]);
  });

  test('replayed: the same', async () => {
    const tape = `${dir}/replay.jsonl`;
    await recordOpening(tape);
    await check({ tape });
  });

  test('under modeltape run, the run fails and its summary says why', async () => {
    const tape = `${dir}/run.jsonl`;
    await recordOpening(tape);
    writeFileSync(
      `${dir}/client.mjs`,
      `import { WebSocket } from 'ws';
const socket = new WebSocket(process.env.OPENAI_BASE_URL.replace(/^http/, 'ws') + '/realtime?model=gpt-realtime');
socket.once('message', () => socket.send(${JSON.stringify(tooLarge)}));
socket.once('close', (code) => console.log('closed', code));
`,
    );
    const run = await runMain(['run', '--tape', tape, '--max-request-body', String(LIMIT), '--', process.execPath, `${dir}/client.mjs`]);
    expect(run.stdout).toContain('closed 1009');
    expect(run.stderr).toMatch(/1 refused/);
    expect(run.stderr).toContain('the session was closed with 1009 (message too big)');
    expect(run.code).toBe(1);
  });
});
