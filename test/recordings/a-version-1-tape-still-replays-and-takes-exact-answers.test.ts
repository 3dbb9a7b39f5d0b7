import { readFileSync, writeFileSync } from 'node:fs';
import OpenAI from 'openai';
import { describe, expect, test } from 'vitest';
import { startProxy } from 'modeltape/proxy';
import { TAPE_SCHEMA_VERSION, loadTape, serializeLine, type Exchange } from 'modeltape/recordings';
import { recordTape } from '../support/record-tape.js';
import { runMain } from '../support/cli.js';
import { sample, startStandInUpstream } from '../support/stand-in-upstream.js';
import { tempDir } from '../support/temp-dir.js';

const ANSWER = sample('openai/chat-completion.json');
const ask = (content: string) => ({ model: 'gpt-4.1-nano', messages: [{ role: 'user' as const, content }] });

describe('a version 1 tape', () => {
  const dir = tempDir();

  test('still loads and replays its JSON answers as compact JSON, passes verify, and takes exact answers appended to it', async () => {
    // A version 1 tape, as modeltape wrote it before: a JSON answer is its parsed value only.
    const tape = `${dir}/v1.jsonl`;
    await recordTape(tape, async ({ openai }) => new OpenAI({ apiKey: 'fake-key', baseURL: openai, maxRetries: 0 }).chat.completions.create(ask('one')), {
      reply: () => ({ body: ANSWER }),
    });
    const [headerLine, exchangeLine] = readFileSync(tape, 'utf8').trimEnd().split('\n');
    const old = JSON.parse(exchangeLine!) as Exchange;
    old.response.body = { json: JSON.parse(ANSWER.toString('utf8')) as unknown };
    writeFileSync(tape, `${headerLine!.replace(`"schemaVersion":${TAPE_SCHEMA_VERSION}`, '"schemaVersion":1')}\n${serializeLine(old)}`);
    expect(TAPE_SCHEMA_VERSION).toBe(4);
    expect(loadTape(tape).header.schemaVersion).toBe(1);

    const verified = await runMain(['verify', tape]);
    expect(verified.stdout).toMatch(/: ok, 1 exchange\n$/);

    const standIn = await startStandInUpstream(() => ({ body: ANSWER }));
    const proxy = await startProxy({ tape, mode: 'auto', allowRecordInCi: true, upstreams: { openai: standIn.url } });
    try {
      const client = new OpenAI({ apiKey: 'fake-key', baseURL: proxy.baseUrls.openai, maxRetries: 0 });
      const replayed = await client.chat.completions.create(ask('one')).asResponse();
      expect(await replayed.text()).toBe(JSON.stringify(JSON.parse(ANSWER.toString('utf8'))));
      const recorded = await client.chat.completions.create(ask('two')).asResponse();
      expect(Buffer.from(await recorded.arrayBuffer()).equals(ANSWER)).toBe(true);
    } finally {
      expect(await proxy.close()).toMatchObject({ hits: 1, recorded: 1 });
      await standIn.close();
    }

    // The header keeps its version; the appended answer carries what gives its bytes back.
    const { header, exchanges } = loadTape(tape);
    expect(header.schemaVersion).toBe(1);
    expect(exchanges.map(({ exchange }) => exchange.response.body !== undefined && 'sha256' in exchange.response.body)).toEqual([false, true]);
    const again = await startProxy({ tape });
    try {
      const client = new OpenAI({ apiKey: 'fake-key', baseURL: again.baseUrls.openai, maxRetries: 0 });
      expect(Buffer.from(await (await client.chat.completions.create(ask('two')).asResponse()).arrayBuffer()).equals(ANSWER)).toBe(true);
    } finally {
      await again.close();
    }
  });
});
