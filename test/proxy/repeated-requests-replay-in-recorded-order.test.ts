import OpenAI from 'openai';
import { describe, expect, test } from 'vitest';
import { startProxy } from 'modeltape/proxy';
import { loadTape } from 'modeltape/recordings';
import { closeAfterEach } from '../support/close-after-each.js';
import { recordTape } from '../support/record-tape.js';
import { tempDir } from '../support/temp-dir.js';

// The stand-in answers the same question differently each time, as a real model does.
function countingReply() {
  let count = 0;
  return () => {
    count++;
    return {
      body: JSON.stringify({
        id: `chatcmpl-${count}`,
        object: 'chat.completion',
        created: 1,
        model: 'gpt-4.1-nano',
        choices: [{ index: 0, message: { role: 'assistant', content: `answer ${count}`, refusal: null }, logprobs: null, finish_reason: 'stop' }],
      }),
    };
  };
}

const ask = (client: OpenAI) =>
  client.chat.completions
    .create({ model: 'gpt-4.1-nano', messages: [{ role: 'user', content: 'Roll a die' }] })
    .then((completion) => completion.choices[0]!.message.content);

describe('identical repeated requests', () => {
  const dir = tempDir();
  const closing = closeAfterEach();

  test('replay their recorded answers in recorded order, and a call past the last is a miss naming the ordinal', async () => {
    const tape = `${dir}/repeat.jsonl`;
    const recorded = await recordTape(
      tape,
      async ({ openai }) => {
        const client = new OpenAI({ apiKey: 'fake-key', baseURL: openai, maxRetries: 0 });
        return [await ask(client), await ask(client)];
      },
      { reply: countingReply() },
    );
    expect(recorded).toEqual(['answer 1', 'answer 2']);
    expect(loadTape(tape).exchanges.map(({ exchange }) => exchange.ordinal)).toEqual([0, 1]);

    const proxy = closing(await startProxy({ tape }));
    const client = new OpenAI({ apiKey: 'fake-key', baseURL: proxy.baseUrls.openai, maxRetries: 0 });
    expect([await ask(client), await ask(client)]).toEqual(['answer 1', 'answer 2']);
    await expect(ask(client)).rejects.toThrow(/this request was recorded 2 times and this is call 3 \(ordinal 2\)[\s\S]*--repeat last/);
    expect((await proxy.close()).misses).toBe(1);
  });

  test('with --repeat last, reuse the last answer instead of missing', async () => {
    const tape = `${dir}/repeat-last.jsonl`;
    await recordTape(tape, async ({ openai }) => ask(new OpenAI({ apiKey: 'fake-key', baseURL: openai, maxRetries: 0 })), { reply: countingReply() });
    const proxy = closing(await startProxy({ tape, repeat: 'last' }));
    const client = new OpenAI({ apiKey: 'fake-key', baseURL: proxy.baseUrls.openai, maxRetries: 0 });
    expect([await ask(client), await ask(client), await ask(client)]).toEqual(['answer 1', 'answer 1', 'answer 1']);
    expect(await proxy.close()).toMatchObject({ hits: 3, misses: 0 });
  });

  test('in auto mode, replay what was recorded and record the next call with the next ordinal', async () => {
    const tape = `${dir}/auto.jsonl`;
    await recordTape(tape, async ({ openai }) => ask(new OpenAI({ apiKey: 'fake-key', baseURL: openai, maxRetries: 0 })), { reply: countingReply() });
    await recordTape(
      tape,
      async ({ openai }) => {
        const client = new OpenAI({ apiKey: 'fake-key', baseURL: openai, maxRetries: 0 });
        return [await ask(client), await ask(client), await ask(client)];
      },
      { reply: countingReply(), proxy: { mode: 'auto' } },
    ).then((answers) => expect(answers).toEqual(['answer 1', 'answer 1', 'answer 2']));
    expect(loadTape(tape).exchanges.map(({ exchange }) => exchange.ordinal)).toEqual([0, 1, 2]);
  });
});
