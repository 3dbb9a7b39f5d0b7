import OpenAI from 'openai';
import { describe, expect, test } from 'vitest';
import { FakeProvider, FakeScriptError } from 'modeltape/fake-provider';

const client = (fake: FakeProvider) => new OpenAI({ apiKey: 'fake-key', fetch: fake.fetch, maxRetries: 0 });
const ask = (fake: FakeProvider, content: string, extra: Partial<OpenAI.ChatCompletionCreateParamsNonStreaming> = {}) =>
  client(fake)
    .chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content }], ...extra })
    .then((completion) => completion.choices[0]!.message);

describe('a FakeProvider script', () => {
  test('answers queued steps first in, first out', async () => {
    const fake = new FakeProvider().willSay('first').willSay('second');
    expect((await ask(fake, 'a')).content).toBe('first');
    expect((await ask(fake, 'b')).content).toBe('second');
    fake.assertConsumed();
  });

  test('that runs out fails loudly, naming the call index and the head of the prompt, and never repeats its last answer', async () => {
    const fake = new FakeProvider().willSay('only one');
    await ask(fake, 'first question');
    const error = await ask(fake, 'What is the weather in Paris today?').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.UnprocessableEntityError);
    expect((error as Error).message).toContain('FakeProvider script ran out at call 1');
    expect((error as Error).message).toContain('prompt: "user: What is the weather in Paris today?"');
    expect((error as Error).message).toContain('never cycles or repeats its last answer');
    expect(fake.problems()).toHaveLength(1);
    expect(() => fake.assertConsumed()).toThrow(FakeScriptError);
    // It does not start answering again either.
    await expect(ask(fake, 'third')).rejects.toThrow(/ran out at call 2/);
  });

  test('rules answer before the queue: by glob over the prompt, by model, by tools present, by predicate', async () => {
    const fake = new FakeProvider().willSay('from the queue');
    fake.when({ prompt: '*weather*' }).willSay('weather rule');
    fake.when({ model: 'gpt-4o-mini' }).willSay('mini rule');
    fake.when({ tools: ['lookup'] }).willSay('tools rule');
    fake.when((turn) => turn.messages.at(-1)?.text === 'exactly this').willSay('predicate rule');
    expect((await ask(fake, 'what about the weather?')).content).toBe('weather rule');
    expect((await ask(fake, 'hi', { model: 'gpt-4o-mini' })).content).toBe('mini rule');
    expect(
      (await ask(fake, 'hi', { tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: {} } } }] })).content,
    ).toBe('tools rule');
    expect((await ask(fake, 'exactly this')).content).toBe('predicate rule');
    expect((await ask(fake, 'anything else')).content).toBe('from the queue');
    fake.assertConsumed();
  });

  test('a rule answers once unless it sticks', async () => {
    const fake = new FakeProvider();
    fake.when({ lastMessage: 'ping' }, { always: true }).willSay('pong');
    fake.when({ lastMessage: 'once' }).willSay('just once');
    expect((await ask(fake, 'ping')).content).toBe('pong');
    expect((await ask(fake, 'ping')).content).toBe('pong');
    expect((await ask(fake, 'once')).content).toBe('just once');
    await expect(ask(fake, 'once')).rejects.toThrow(/ran out/);
  });

  test('assertConsumed lists what was never used, and fails when nothing called the fake', () => {
    const fake = new FakeProvider().willSay('unused');
    fake.when({ model: 'never' }).willSay('rule never hit');
    expect(() => fake.assertConsumed()).toThrow(
      /no call reached the fake[\s\S]*never used: step willSay\("unused"\)[\s\S]*never used: rule when\(\{"model":"never"\}\)/,
    );
  });

  test('consecutive willCallTool calls make one turn of parallel calls; endTurn starts the next', async () => {
    const tools = [
      { type: 'function' as const, function: { name: 'a', parameters: { type: 'object', properties: {} } } },
      { type: 'function' as const, function: { name: 'b', parameters: { type: 'object', properties: {} } } },
    ];
    const fake = new FakeProvider().willCallTool('a').willCallTool('b').endTurn().willCallTool('b');
    expect((await ask(fake, 'go', { tools })).tool_calls!.map((call) => (call.type === 'function' ? call.function.name : call.type))).toEqual(['a', 'b']);
    const second = await client(fake).chat.completions.create({
      model: 'gpt-4o',
      tools,
      messages: [
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'fake-call-0', type: 'function', function: { name: 'a', arguments: '{}' } },
            { id: 'fake-call-1', type: 'function', function: { name: 'b', arguments: '{}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'fake-call-0', content: 'A' },
        { role: 'tool', tool_call_id: 'fake-call-1', content: 'B' },
      ],
    });
    expect(second.choices[0]!.message.tool_calls!.map((call) => (call.type === 'function' ? call.function.name : call.type))).toEqual(['b']);
    expect(fake.asked()[1]!.exchanges.map((exchange) => `${exchange.name}=${exchange.result}`)).toEqual(['a=A', 'b=B']);
  });

  test('controls how a streamed answer is chunked', async () => {
    const fake = new FakeProvider().willSay('abcdef', { chunks: { size: 2 } }).willSay('Hello world', { chunks: { pieces: ['Hel', 'lo wor', 'ld'] } });
    const pieces = async () => {
      const stream = client(fake).chat.completions.stream({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] });
      const seen: string[] = [];
      stream.on('content', (delta) => seen.push(delta));
      await stream.finalChatCompletion();
      return seen;
    };
    expect(await pieces()).toEqual(['ab', 'cd', 'ef']);
    expect(await pieces()).toEqual(['Hel', 'lo wor', 'ld']);
  });

  test('calls() lists every call with its endpoint and body, without credentials', async () => {
    const fake = new FakeProvider().willSay('ok');
    await ask(fake, 'hi');
    await client(fake).embeddings.create({ model: 'text-embedding-3-small', input: 'hi' });
    const calls = fake.calls();
    expect(calls.map((call) => [call.method, call.path, call.api, call.status])).toEqual([
      ['POST', '/v1/chat/completions', 'openai-chat', 200],
      ['POST', '/v1/embeddings', 'openai-embeddings', 200],
    ]);
    expect(calls[0]!.headers.authorization).toBeUndefined();
    expect(calls[0]!.body).toMatchObject({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
  });
});
