import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateText } from 'ai';
import OpenAI from 'openai';
import { afterEach, describe, expect, test } from 'vitest';
import { FakeProvider, ModeltapeError, type StepOptions, type WireResponse } from 'modeltape/fake-provider';
import { clientsFor, TRANSPORTS, type FakeClients } from '../support/fake-clients.js';
import { validateAgainstSpec, type SpecProvider } from '../support/spec-validator.js';

let clients: FakeClients | undefined;
afterEach(async () => {
  await clients?.close();
  clients = undefined;
});

const user = [{ role: 'user' as const, content: 'Tell me a story.' }];

describe.each(TRANSPORTS)('finish reasons reach each SDK as the provider sends them, over %s', (transport) => {
  test('openai chat: length, content_filter, a refusal and a stop sequence, JSON and streamed', async () => {
    const fake = new FakeProvider()
      .willSay('Once upon a', { finish: 'length' })
      .willSay('Once upon a', { finish: 'content_filter' })
      .willSay('I cannot help with that.', { finish: 'refusal' })
      .willSay('Once upon a time', { finish: 'stop-sequence' })
      .willSay('Once upon a', { finish: 'length' })
      .willSay('I cannot help with that.', { finish: 'refusal' });
    clients = await clientsFor(fake, transport);
    const create = (extra: Record<string, unknown> = {}) => clients!.openai.chat.completions.create({ model: 'gpt-4o', messages: user, ...extra });
    const length = await create();
    expect(length.choices[0]!.finish_reason).toBe('length');
    expect(length.choices[0]!.message.content).toBe('Once upon a');
    expect((await create()).choices[0]!.finish_reason).toBe('content_filter');
    const refused = await create();
    expect(refused.choices[0]!.finish_reason).toBe('stop');
    expect(refused.choices[0]!.message).toMatchObject({ content: null, refusal: 'I cannot help with that.' });
    expect((await create({ stop: ['THE END'] })).choices[0]!.finish_reason).toBe('stop');
    const streamed = await clients.openai.chat.completions.stream({ model: 'gpt-4o', messages: user }).finalChatCompletion();
    expect(streamed.choices[0]!.finish_reason).toBe('length');
    expect(streamed.choices[0]!.message.content).toBe('Once upon a');
    const streamedRefusal = await clients.openai.chat.completions.stream({ model: 'gpt-4o', messages: user }).finalChatCompletion();
    expect(streamedRefusal.choices[0]!.message.refusal).toBe('I cannot help with that.');
    expect(streamedRefusal.choices[0]!.message.content).toBeNull();
    fake.assertConsumed();
  });

  test('openai responses: incomplete for max_output_tokens and content_filter, a refusal part, JSON and streamed', async () => {
    const fake = new FakeProvider()
      .willSay('Once upon a', { finish: 'length' })
      .willSay('Once upon a', { finish: 'content-filter' })
      .willSay('I cannot help with that.', { finish: 'refusal' })
      .willSay('Once upon a', { finish: 'max_output_tokens' })
      .willSay('I cannot help with that.', { finish: 'refusal' });
    clients = await clientsFor(fake, transport);
    const create = () => clients!.openai.responses.create({ model: 'gpt-4o', input: 'Tell me a story.' });
    const length = await create();
    expect(length.status).toBe('incomplete');
    expect(length.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(length.output_text).toBe('Once upon a');
    expect((await create()).incomplete_details).toEqual({ reason: 'content_filter' });
    const refused = await create();
    expect(refused.status).toBe('completed');
    expect(refused.output[0]).toMatchObject({ type: 'message', content: [{ type: 'refusal', refusal: 'I cannot help with that.' }] });
    const streamed = await clients.openai.responses.stream({ model: 'gpt-4o', input: 'Tell me a story.' }).finalResponse();
    expect(streamed.status).toBe('incomplete');
    expect(streamed.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    const streamedRefusal = await clients.openai.responses.stream({ model: 'gpt-4o', input: 'Tell me a story.' }).finalResponse();
    expect(streamedRefusal.output[0]).toMatchObject({ content: [{ type: 'refusal', refusal: 'I cannot help with that.' }] });
    fake.assertConsumed();
  });

  test('anthropic: max_tokens, refusal, pause_turn and stop_sequence with the sequence hit, JSON and streamed', async () => {
    const fake = new FakeProvider()
      .willSay('Once upon a', { finish: 'max_tokens' })
      .willSay('I cannot help with that.', { finish: 'refusal' })
      .willSay('Searching', { finish: 'pause-turn' })
      .willSay('Once upon a time', { finish: 'stop-sequence', stopSequence: 'THE END' })
      .willSay('Once upon a time', { finish: 'stop_sequence' })
      .willSay('I cannot help with that.', { finish: 'refusal' });
    clients = await clientsFor(fake, transport);
    const base = { model: 'claude-opus-4-8', max_tokens: 100, messages: user };
    expect((await clients.anthropic.messages.create(base)).stop_reason).toBe('max_tokens');
    const refused = await clients.anthropic.messages.create(base);
    expect(refused.stop_reason).toBe('refusal');
    expect(refused.stop_details).toEqual({ type: 'refusal', category: null, explanation: null });
    expect((await clients.anthropic.messages.create(base)).stop_reason).toBe('pause_turn');
    const stopped = await clients.anthropic.messages.create({ ...base, stop_sequences: ['###', 'THE END'] });
    expect([stopped.stop_reason, stopped.stop_sequence]).toEqual(['stop_sequence', 'THE END']);
    const streamed = await clients.anthropic.messages.stream({ ...base, stop_sequences: ['###'] }).finalMessage();
    expect([streamed.stop_reason, streamed.stop_sequence]).toEqual(['stop_sequence', '###']);
    const streamedRefusal = await clients.anthropic.messages.stream(base).finalMessage();
    expect(streamedRefusal.stop_reason).toBe('refusal');
    fake.assertConsumed();
  });

  test("ai: finishReason is 'length' and 'content-filter' through @ai-sdk/openai (chat, responses) and @ai-sdk/anthropic", async () => {
    const fake = new FakeProvider();
    for (let index = 0; index < 3; index++) fake.willSay('Once upon a', { finish: 'length' }).willSay('No.', { finish: 'refusal' });
    clients = await clientsFor(fake, transport);
    const models = [clients.vercelOpenAI.chat('gpt-4o'), clients.vercelOpenAI('gpt-4o'), clients.vercelAnthropic('claude-opus-4-8')];
    const reasons: string[] = [];
    for (const model of models) {
      for (let index = 0; index < 2; index++) reasons.push((await generateText({ model, prompt: 'Tell me a story.', maxRetries: 0 })).finishReason);
    }
    expect(reasons).toEqual(['length', 'content-filter', 'length', 'content-filter', 'length', 'content-filter']);
    fake.assertConsumed();
  });

  test('openai chat: n choices, each scripted, with each streamed chunk carrying its choice index', async () => {
    const fake = new FakeProvider().willSay(['Yes.', 'No.', 'Maybe.']).willSay(['Red', 'Blue'], { finish: 'length' });
    clients = await clientsFor(fake, transport);
    const completion = await clients.openai.chat.completions.create({ model: 'gpt-4o', messages: user, n: 3 });
    expect(completion.choices.map((choice) => [choice.index, choice.message.content, choice.finish_reason])).toEqual([
      [0, 'Yes.', 'stop'],
      [1, 'No.', 'stop'],
      [2, 'Maybe.', 'stop'],
    ]);
    const streamed = await clients.openai.chat.completions.stream({ model: 'gpt-4o', messages: user, n: 2 }).finalChatCompletion();
    expect(streamed.choices.map((choice) => [choice.index, choice.message.content, choice.finish_reason])).toEqual([
      [0, 'Red', 'length'],
      [1, 'Blue', 'length'],
    ]);
    fake.assertConsumed();
  });
});

describe('finish reasons that do not apply are loud', () => {
  test('a finish the API has not does not fit, listing those it has; one of them works', async () => {
    const ask = (fake: FakeProvider) => fake.answer({ method: 'POST', path: '/v1/messages', headers: {}, body: JSON.stringify(messagesBody()) });
    const wrong = ask(new FakeProvider().willSay('Hidden.', { finish: 'content-filter' }));
    expect(wrong.status).toBe(422);
    expect(errorMessage(wrong)).toContain('finish "content-filter" does not apply to anthropic-messages.');
    expect(errorMessage(wrong)).toContain('Script one of stop, length, refusal, stop-sequence, pause-turn, end_turn, max_tokens, stop_sequence, pause_turn.');
    expect(ask(new FakeProvider().willSay('Hidden.', { finish: 'refusal' })).status).toBe(200);
    const chat = new FakeProvider().willSay('x', { finish: 'pause_turn' });
    const onChat = chat.answer({ method: 'POST', path: '/v1/chat/completions', headers: {}, body: JSON.stringify({ model: 'gpt-4o', messages: user }) });
    expect(errorMessage(onChat)).toContain('Script one of stop, length, content-filter, refusal, stop-sequence, content_filter.');
  });

  test('a misspelt finish fails when the step is written, listing every name', () => {
    const error = (() => {
      try {
        new FakeProvider().willSay('x', { finish: 'too-long' as StepOptions['finish'] });
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(ModeltapeError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(
      'Invalid finish "too-long": expected one of stop, length, content-filter, refusal, stop-sequence, pause-turn, content_filter, max_output_tokens, max_tokens, end_turn, stop_sequence, pause_turn, MAX_TOKENS, SAFETY, RECITATION, BLOCKLIST, PROHIBITED_CONTENT, SPII, MALFORMED_FUNCTION_CALL, content_filtered, guardrail_intervened',
    );
  });

  test('a stop sequence the request did not send does not fit; following the advice works', () => {
    const ask = (fake: FakeProvider, extra: Record<string, unknown> = {}) =>
      fake.answer({ method: 'POST', path: '/v1/messages', headers: {}, body: JSON.stringify(messagesBody(extra)) });
    const none = ask(new FakeProvider().willSay('x', { finish: 'stop-sequence' }));
    expect(errorMessage(none)).toContain('the request sent no stop_sequences.\nSend stop_sequences in the request');
    expect(ask(new FakeProvider().willSay('x', { finish: 'stop-sequence' }), { stop_sequences: ['END'] }).status).toBe(200);
    const other = ask(new FakeProvider().willSay('x', { finish: 'stop-sequence', stopSequence: 'FIN' }), { stop_sequences: ['END'] });
    expect(errorMessage(other)).toContain(
      'stopSequence "FIN" is not among the request\'s stop_sequences ("END").\nScript stopSequence as one of those, or leave it out',
    );
    const chat = new FakeProvider().willSay('x', { finish: 'stop-sequence' });
    const onChat = chat.answer({ method: 'POST', path: '/v1/chat/completions', headers: {}, body: JSON.stringify({ model: 'gpt-4o', messages: user }) });
    expect(errorMessage(onChat)).toContain('the request sent no stop.\nSend stop in the request');
  });

  test('a refusal is text: a tool call with finish refusal does not fit, and willSay(refusal) does', () => {
    const body = JSON.stringify(messagesBody({ tools: [{ name: 'get_weather', input_schema: { type: 'object', properties: {} } }] }));
    const wrong = new FakeProvider().willCallTool('get_weather', {}, { finish: 'refusal' }).answer({ method: 'POST', path: '/v1/messages', headers: {}, body });
    expect(errorMessage(wrong)).toContain("Script willSay(refusalText, { finish: 'refusal' }).");
    const right = new FakeProvider().willSay('I will not.', { finish: 'refusal' }).answer({ method: 'POST', path: '/v1/messages', headers: {}, body });
    expect(right.status).toBe(200);
  });
});

describe('n choices on OpenAI chat', () => {
  test('unscripted, n choices are n distinct fake answers', async () => {
    const fake = new FakeProvider();
    const openai = new OpenAI({ apiKey: 'fake-key', fetch: fake.fetch, maxRetries: 0 });
    const completion = await openai.chat.completions.create({ model: 'gpt-4o', messages: user, n: 3 });
    const contents = completion.choices.map((choice) => choice.message.content);
    expect(completion.choices.map((choice) => choice.index)).toEqual([0, 1, 2]);
    expect(new Set(contents).size).toBe(3);
  });

  test('n outside 1..128 is the 400 OpenAI gives', async () => {
    const fake = new FakeProvider();
    const openai = new OpenAI({ apiKey: 'fake-key', fetch: fake.fetch, maxRetries: 0 });
    const above = await openai.chat.completions.create({ model: 'gpt-4o', messages: user, n: 130 }).catch((caught: unknown) => caught);
    expect(above).toBeInstanceOf(OpenAI.BadRequestError);
    expect(above).toMatchObject({
      message: "400 Invalid 'n': integer above maximum value. Expected a value <= 128, but got 130 instead.",
      param: 'n',
      code: 'integer_above_max_value',
    });
    const below = await openai.chat.completions.create({ model: 'gpt-4o', messages: user, n: 0 }).catch((caught: unknown) => caught);
    expect(below).toMatchObject({ code: 'integer_below_min_value', param: 'n' });
    expect((await openai.chat.completions.create({ model: 'gpt-4o', messages: user, n: 128 })).choices).toHaveLength(128);
  });

  test('a count of choices that does not fit the request says what to script, and that works', () => {
    const cases: Array<{ path: string; body: Record<string, unknown>; wrong: string[] | string; advice: string; right: string[] | string }> = [
      { path: '/v1/chat/completions', body: { model: 'gpt-4o', messages: user }, wrong: ['a', 'b'], advice: 'Send n: 2 in the request', right: 'a' },
      {
        path: '/v1/chat/completions',
        body: { model: 'gpt-4o', messages: user, n: 3 },
        wrong: ['a', 'b'],
        advice: 'Script willSay([…]) with 3 texts',
        right: ['a', 'b', 'c'],
      },
      {
        path: '/v1/chat/completions',
        body: { model: 'gpt-4o', messages: user, n: 2 },
        wrong: 'a',
        advice: 'Script willSay([…]) with 2 texts',
        right: ['a', 'b'],
      },
      { path: '/v1/messages', body: messagesBody(), wrong: ['a', 'b'], advice: 'Script willSay(text) with one text.', right: 'a' },
    ];
    for (const { path, body, wrong, advice, right } of cases) {
      const send = (fake: FakeProvider) => fake.answer({ method: 'POST', path, headers: {}, body: JSON.stringify(body) });
      expect(errorMessage(send(new FakeProvider().willSay(wrong)))).toContain(advice);
      expect(send(new FakeProvider().willSay(right)).status).toBe(200);
    }
    expect(cases).toHaveLength(4);
  });
});

describe('every finish and choice the fake renders validates against the provider specs', () => {
  const SCHEMAS: Record<string, { provider: SpecProvider; body: string; event: string }> = {
    '/v1/chat/completions': { provider: 'openai', body: 'CreateChatCompletionResponse', event: 'CreateChatCompletionStreamResponse' },
    '/v1/responses': { provider: 'openai', body: 'Response', event: 'ResponseStreamEvent' },
    '/v1/messages': { provider: 'anthropic', body: 'Message', event: 'MessageStreamEvent' },
  };
  const tool = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
  const requests = {
    '/v1/chat/completions': (stream: boolean) => ({
      model: 'gpt-4o',
      messages: user,
      stream,
      stop: ['END'],
      n: 2,
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: tool } }],
    }),
    '/v1/responses': (stream: boolean) => ({
      model: 'gpt-4o',
      input: 'Tell me a story.',
      stream,
      tools: [{ type: 'function', name: 'get_weather', parameters: tool, strict: true }],
    }),
    '/v1/messages': (stream: boolean) => ({ ...messagesBody({ stop_sequences: ['END'], tools: [{ name: 'get_weather', input_schema: tool }] }), stream }),
  };
  const finishes: Record<keyof typeof requests, Array<NonNullable<StepOptions['finish']>>> = {
    '/v1/chat/completions': ['length', 'content-filter', 'refusal', 'stop-sequence'],
    '/v1/responses': ['length', 'content-filter', 'refusal'],
    '/v1/messages': ['length', 'refusal', 'stop-sequence', 'pause-turn'],
  };

  test('JSON bodies and stream events, text and tool calls, for each finish', () => {
    let checked = 0;
    for (const path of Object.keys(requests) as Array<keyof typeof requests>) {
      const schemas = SCHEMAS[path]!;
      for (const finish of finishes[path]) {
        for (const stream of [false, true]) {
          const fake = new FakeProvider();
          const choices = path === '/v1/chat/completions';
          fake.willSay(choices ? ['Once upon a', 'In a land'] : 'Once upon a', { finish, chunks: { size: 4 } });
          if (finish !== 'refusal' && !choices) fake.willCallTool('get_weather', { city: 'Paris' }, { finish });
          const turns = finish !== 'refusal' && !choices ? 2 : 1;
          for (let turn = 0; turn < turns; turn++) {
            const wire = fake.answer({ method: 'POST', path, headers: {}, body: JSON.stringify(requests[path](stream)) });
            expect(wire.status, `${path} ${finish} ${stream}: ${String(wire.body)}`).toBe(200);
            const values = stream ? streamValues(wire) : [JSON.parse(String(wire.body))];
            for (const value of values) {
              const shown = schemas.provider === 'anthropic' ? withAnthropicCitations(value) : value;
              const result = validateAgainstSpec(schemas.provider, stream ? schemas.event : schemas.body, shown);
              expect(result.errors, `${path} ${finish} stream=${stream}: ${JSON.stringify(value)}`).toEqual([]);
              checked++;
            }
          }
          fake.assertConsumed();
        }
      }
    }
    expect(checked).toBeGreaterThan(150);
  });
});

describe('the script file', () => {
  test('finish, stopSequence and a list of choices in JSONL', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'modeltape-finish-'));
    const file = join(directory, 'script.jsonl');
    writeFileSync(
      file,
      [
        '{"schemaVersion":1,"kind":"modeltape-fake-script"}',
        '{"say":"Once upon a","finish":"length"}',
        '{"say":["Yes.","No."]}',
        '{"say":"Once upon a time","finish":"stop_sequence","stopSequence":"END"}',
      ].join('\n'),
    );
    const fake = FakeProvider.fromScript(file);
    const openai = new OpenAI({ apiKey: 'fake-key', fetch: fake.fetch, maxRetries: 0 });
    expect((await openai.chat.completions.create({ model: 'gpt-4o', messages: user })).choices[0]!.finish_reason).toBe('length');
    const two = await openai.chat.completions.create({ model: 'gpt-4o', messages: user, n: 2 });
    expect(two.choices.map((choice) => choice.message.content)).toEqual(['Yes.', 'No.']);
    const wire = fake.answer({ method: 'POST', path: '/v1/messages', headers: {}, body: JSON.stringify(messagesBody({ stop_sequences: ['END'] })) });
    expect(JSON.parse(String(wire.body))).toMatchObject({ stop_reason: 'stop_sequence', stop_sequence: 'END' });
    fake.assertConsumed();
    writeFileSync(file, '{"say":"x","finish":"too-long"}\n');
    expect(() => FakeProvider.fromScript(file)).toThrow(/finish/);
  });
});

function messagesBody(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { model: 'claude-opus-4-8', max_tokens: 100, messages: user, ...extra };
}

function errorMessage(wire: WireResponse): string {
  expect(wire.status).toBe(422);
  return String((JSON.parse(String(wire.body)) as { error: { message: string } }).error.message);
}

function streamValues(wire: WireResponse): unknown[] {
  const values: unknown[] = [];
  for (const frame of wire.frames ?? []) {
    const data = String(frame)
      .split('\n')
      .find((line) => line.startsWith('data: '))
      ?.slice('data: '.length);
    if (data === undefined || data === '[DONE]') continue;
    const value = JSON.parse(data) as Record<string, unknown>;
    // Anthropic's ping and the chat usage chunk are plain spec shapes too; all are checked.
    values.push(value);
  }
  return values;
}

// As in every-response-validates-against-the-provider-specs: Anthropic text blocks carry no
// `citations` key, as the real API sends them, while the spec requires it (nullable).
function withAnthropicCitations(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withAnthropicCitations);
  if (typeof value !== 'object' || value === null) return value;
  const copy: Record<string, unknown> = {};
  for (const [name, item] of Object.entries(value)) copy[name] = withAnthropicCitations(item);
  if (copy.type === 'text' && typeof copy.text === 'string' && !('citations' in copy)) copy.citations = null;
  return copy;
}
