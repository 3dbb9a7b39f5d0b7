import { readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { beforeEach, describe, expect, test } from 'vitest';
import { loadTape } from 'modeltape/recordings';
import { startProxy } from 'modeltape/proxy';
import { main } from '../../dist/cli/main.js';
import { recordTape } from '../support/record-tape.js';
import { startStandInUpstream } from '../support/stand-in-upstream.js';
import { tempDir } from '../support/temp-dir.js';

const plain = { model: 'gpt-4o', messages: [{ role: 'user', content: 'hello' }] };
const withId = { model: 'gpt-4o', metadata: { request_id: 'r-1' }, messages: [{ role: 'user', content: 'with an id' }] };

function ask(openai: string, body: unknown): Promise<Response> {
  return fetch(`${openai}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

async function verify(tape: string): Promise<string> {
  const stdout = new PassThrough();
  let out = '';
  stdout.on('data', (chunk) => (out += chunk));
  await main(['verify', tape], { stdout, stderr: new PassThrough(), env: {} });
  return out;
}

describe('a tape keyed with other rules than the run uses', () => {
  const dir = tempDir();
  const tape = `${dir}/chat.jsonl`;
  beforeEach(async () => {
    await recordTape(tape, async ({ openai }) => {
      for (const body of [plain, withId]) await (await ask(openai, body)).arrayBuffer();
    });
  });

  test("replays as it is when none of its keys changes under the run's rules, writing nothing, and says so", async () => {
    const before = readFileSync(tape, 'utf8');
    const logs: string[] = [];
    const proxy = await startProxy({ tape, normalizers: [{ path: '.user' }], log: (message) => logs.push(message) });
    for (const body of [plain, withId]) expect((await ask(proxy.baseUrls.openai, body)).status).toBe(200);
    expect(await proxy.close()).toMatchObject({ hits: 2, misses: 0 });
    expect(readFileSync(tape, 'utf8')).toBe(before);
    expect(logs).toContainEqual(
      expect.stringContaining(`${tape}:1: the tape was keyed with other rules than this run uses, and none of its 2 keys changes under this run's rules`),
    );
  });

  test('is refused when a key changes, naming the exchange, the rule that changed it and the command that re-keys the tape', async () => {
    const before = readFileSync(tape, 'utf8');
    for (const mode of ['replay', 'auto'] as const) {
      const refused = startProxy({ tape, mode, allowRecordInCi: true, normalizers: [{ path: '.metadata.request_id' }] });
      await expect(refused).rejects.toThrow(
        `under this run's rules 1 of 2 keys change:\n  ${tape}:3 POST /v1/chat/completions (openai): normalizer {"path":".metadata.request_id"} (added) at .metadata.request_id\n`,
      );
      await expect(refused).rejects.toThrow(`Run modeltape rekey ${tape} to re-key it under this run's rules`);
    }
    expect(readFileSync(tape, 'utf8')).toBe(before);
  });

  test('is taken over by a recording under rules that change none of its keys: the header names them, every line is kept, and it verifies', async () => {
    const [, ...linesBefore] = readFileSync(tape, 'utf8').trimEnd().split('\n');
    const standIn = await startStandInUpstream();
    const proxy = await startProxy({ tape, mode: 'auto', allowRecordInCi: true, upstreams: { openai: standIn.url }, normalizers: [{ path: '.user' }] });
    await (await ask(proxy.baseUrls.openai, plain)).arrayBuffer();
    await (await ask(proxy.baseUrls.openai, { ...plain, user: 'u-1', messages: [{ role: 'user', content: 'new' }] })).arrayBuffer();
    expect(await proxy.close()).toMatchObject({ hits: 1, recorded: 1 });
    await standIn.close();

    const [, ...linesAfter] = readFileSync(tape, 'utf8').trimEnd().split('\n');
    expect(linesAfter.slice(0, 2)).toEqual(linesBefore);
    expect(linesAfter).toHaveLength(3);
    expect(loadTape(tape).header.keyRules.normalizers).toEqual([{ path: '.user' }]);
    // verify re-derives every stored key under the header's rules: the new line and the old ones agree with it.
    expect(await verify(tape)).toBe(`${tape}: ok, 3 exchanges\n`);

    const logs: string[] = [];
    const replay = await startProxy({ tape, normalizers: [{ path: '.user' }], log: (message) => logs.push(message) });
    expect((await ask(replay.baseUrls.openai, { ...plain, user: 'u-2', messages: [{ role: 'user', content: 'new' }] })).status).toBe(200);
    expect(await replay.close()).toMatchObject({ hits: 1, misses: 0 });
    expect(logs.filter((message) => message.includes('other rules'))).toEqual([]);
  });
});
