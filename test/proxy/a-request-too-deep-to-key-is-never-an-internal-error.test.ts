import { existsSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { startProxy } from 'modeltape/proxy';
import { MAX_JSON_DEPTH } from 'modeltape/recordings';
import { closeAfterEach } from '../support/close-after-each.js';
import { startStandInUpstream } from '../support/stand-in-upstream.js';
import { tempDir } from '../support/temp-dir.js';

const dir = tempDir({ inProject: true });
const started = closeAfterEach();

// A body nested one level past the cap: it has no key, so no tape can hold it.
const tooDeep = JSON.stringify({
  model: 'gpt-test',
  messages: [{ role: 'user', content: `${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}` }],
  extra: JSON.parse(`${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}`),
});

async function send(url: string): Promise<{ status: number; body: { error?: { type: string; message: string } } }> {
  const response = await fetch(`${url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer not-a-real-key' },
    body: tooDeep,
  });
  return { status: response.status, body: (await response.json()) as { error?: { type: string; message: string } } };
}

describe('a request body nested deeper than the depth cap', () => {
  test('auto mode forwards it unrecorded, and counts it as refused with the reason', async () => {
    const upstream = started(await startStandInUpstream(() => ({ body: '{"id":"chatcmpl-1","object":"chat.completion","choices":[]}' })));
    const log: string[] = [];
    const proxy = started(
      await startProxy({ tape: `${dir}/auto.jsonl`, mode: 'auto', allowRecordInCi: true, log: (line) => log.push(line), upstreams: { openai: upstream.url } }),
    );
    const answer = await send(proxy.baseUrls.openai);
    expect(answer.status).toBe(200);
    expect(upstream.received).toHaveLength(1);
    const summary = await proxy.close();
    expect(summary).toMatchObject({ refused: 1, recorded: 0, passthrough: 1 });
    expect(summary.problems[0]).toContain(`deeper than ${MAX_JSON_DEPTH} levels`);
    expect(log.join('\n')).not.toContain('internal_error');
    // Nothing was written, so no tape was made.
    expect(existsSync(`${dir}/auto.jsonl`)).toBe(false);
  });

  test('replay answers a miss that says why it can never be on the tape, and sends nothing', async () => {
    const proxy = started(await startProxy({ tape: `${dir}/replay.jsonl`, mode: 'replay', missingTape: 'empty', log: () => undefined }));
    const answer = await send(proxy.baseUrls.openai);
    expect(answer.status).toBe(400);
    expect(answer.body.error?.type).toBe('modeltape_replay_miss');
    expect(answer.body.error?.message).toContain('never records what it cannot key');
    const summary = await proxy.close();
    expect(summary).toMatchObject({ misses: 1, upstreamConnections: 0 });
    expect(existsSync(`${dir}/replay.jsonl`)).toBe(false);
  });

  test('a response nested 100,000 levels deep reaches the client and is never recorded, in any form', async () => {
    const deep = `{"id":"chatcmpl-1","choices":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    const upstream = started(await startStandInUpstream(() => ({ headers: { 'content-type': 'application/json' }, body: deep })));
    const proxy = started(
      await startProxy({
        tape: `${dir}/deep-response.jsonl`,
        mode: 'record',
        allowRecordInCi: true,
        log: () => undefined,
        upstreams: { openai: upstream.url },
      }),
    );
    const response = await fetch(`${proxy.baseUrls.openai}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"model":"gpt-test","messages":[]}',
    });
    expect(await response.text()).toBe(deep);
    const summary = await proxy.close();
    expect(summary).toMatchObject({ refused: 1, recorded: 0, internalErrors: 0 });
    expect(summary.problems[0]).toMatch(new RegExp(`deeper than ${MAX_JSON_DEPTH} levels .*\\.response\\.body\\.text`));
    // The exchange is neither JSON nor text nor base64 on a tape: none was made.
    expect(existsSync(`${dir}/deep-response.jsonl`)).toBe(false);
  });
});
