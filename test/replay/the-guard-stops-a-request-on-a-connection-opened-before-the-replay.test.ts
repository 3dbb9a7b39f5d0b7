import { request as httpRequest } from 'node:http';
import { describe, expect, test } from 'vitest';
import { openTape } from 'modeltape/replay';
import { startStandInUpstream } from '../support/stand-in-upstream.js';
import { recordTape } from '../support/record-tape.js';
import { tempDir } from '../support/temp-dir.js';

describe('the replay guard and kept-alive connections', () => {
  const dir = tempDir();

  test('a global fetch reusing a connection to the provider opened before openTape is stopped and counted', async () => {
    const tape = `${dir}/warm.jsonl`;
    await recordTape(tape, async ({ openai }) => {
      await (
        await fetch(`${openai}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"model":"gpt-4o","messages":[]}' })
      ).arrayBuffer();
    });
    const provider = await startStandInUpstream();
    const target = `${provider.url}/v1/chat/completions`;
    // Earlier in the worker (another test, a passthrough session, a warm-up): one real call,
    // which leaves a kept-alive connection in the global dispatcher's pool.
    await (await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"model":"gpt-4o","messages":[]}' })).arrayBuffer();
    expect(provider.received).toHaveLength(1);
    // Time passes (the rest of that test): the connection goes back to the pool.
    await new Promise((resolve) => setTimeout(resolve, 50));

    const session = await openTape(tape, { config: false, upstreams: { openai: provider.url } });
    // The code under test escapes the session: same URL, global fetch.
    const escaped = await fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-would-leak' },
      body: '{"model":"gpt-4o","messages":[{"role":"user","content":"secret prompt"}]}',
    }).then(
      (response) => response.status,
      (error: Error) => error,
    );
    const closed = await session.close().then(
      () => undefined,
      (error: Error) => error,
    );
    await provider.close();
    // Today: the request reached the provider (status 200), prompt and key included, and close() passed.
    expect(provider.received).toHaveLength(1);
    expect(escaped).toBeInstanceOf(Error);
    expect(closed?.message).toMatch(/tried to leave the machine/);
  });

  test('a node:http request on a kept-alive socket (the global agent keeps sockets alive on Node 20) is stopped before its body is written', async () => {
    const tape = `${dir}/warm-http.jsonl`;
    await recordTape(tape, async ({ openai }) => {
      await (
        await fetch(`${openai}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"model":"gpt-4o","messages":[]}' })
      ).arrayBuffer();
    });
    const provider = await startStandInUpstream();
    const target = `${provider.url}/v1/chat/completions`;
    const send = (body: string) =>
      new Promise<string>((resolve) => {
        const outgoing = httpRequest(target, { method: 'POST', headers: { 'content-type': 'application/json' } }, (response) => {
          response.resume();
          response.on('end', () => resolve(`answered ${response.statusCode}`));
        });
        outgoing.on('error', (error) => resolve(error.message));
        outgoing.end(body);
      });
    expect(await send('{"model":"gpt-4o","messages":[]}')).toBe('answered 200');
    await new Promise((resolve) => setTimeout(resolve, 50));

    const session = await openTape(tape, { config: false, upstreams: { openai: provider.url } });
    const outcome = await send('{"model":"gpt-4o","messages":[{"role":"user","content":"secret prompt"}]}');
    await session.close().catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await provider.close();
    expect(outcome).toContain('modeltape blocked');
    // Today: the guard destroys the request only after Node wrote it to the reused socket.
    expect(provider.received.map((received) => received.body).join('\n')).not.toContain('secret prompt');
  });
});
