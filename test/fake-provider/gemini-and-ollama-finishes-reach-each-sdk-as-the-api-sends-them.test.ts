import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { FunctionCallingConfigMode, GoogleGenAI, type GenerateContentResponse } from '@google/genai';
import { generateText, streamText } from 'ai';
import { Ollama } from 'ollama';
import { createOllama } from 'ollama-ai-provider-v2';
import { describe, expect, test } from 'vitest';
import { FakeProvider, type StepOptions, type WireResponse } from 'modeltape/fake-provider';

// Gemini lists one rating per category; the one that blocked says so (ai.google.dev
// GenerateContentResponse: SafetyRating.blocked; js-genai types.SafetyRating).
const blockedRatings = [
  { category: 'HARM_CATEGORY_SEXUALLY_EXPLICIT', probability: 'NEGLIGIBLE' },
  { category: 'HARM_CATEGORY_HATE_SPEECH', probability: 'NEGLIGIBLE' },
  { category: 'HARM_CATEGORY_HARASSMENT', probability: 'NEGLIGIBLE' },
  { category: 'HARM_CATEGORY_DANGEROUS_CONTENT', probability: 'HIGH', blocked: true },
];

const genai = (fake: FakeProvider) => new GoogleGenAI({ apiKey: 'fake-key', httpOptions: { fetch: fake.fetch } });
const geminiBody = (extra: Record<string, unknown> = {}) => JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Tell me a story.' }] }], ...extra });

async function streamed(client: GoogleGenAI, config: Record<string, unknown> = {}): Promise<GenerateContentResponse[]> {
  const chunks: GenerateContentResponse[] = [];
  for await (const chunk of await client.models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'Tell me a story.', config })) chunks.push(chunk);
  return chunks;
}

describe('Gemini finishes through @google/genai', () => {
  test('length is MAX_TOKENS, content-filter is SAFETY with a blocked rating, a stop sequence is STOP, JSON', async () => {
    const fake = new FakeProvider()
      .willSay('Once upon a', { finish: 'length' })
      .willSay('Once upon a', { finish: 'content-filter' })
      .willSay('', { finish: 'SAFETY' })
      .willSay('Once upon a time', { finish: 'stop-sequence' })
      .willSay('Once upon a', { finish: 'MAX_TOKENS' });
    const client = genai(fake);
    const generate = (config: Record<string, unknown> = {}) =>
      client.models.generateContent({ model: 'gemini-2.5-flash', contents: 'Tell me a story.', config });
    const length = await generate();
    expect(length.candidates![0]!.finishReason).toBe('MAX_TOKENS');
    expect(length.text).toBe('Once upon a');
    expect(length.candidates![0]!.safetyRatings).toBeUndefined();
    const filtered = await generate();
    expect(filtered.candidates![0]!.finishReason).toBe('SAFETY');
    expect(filtered.candidates![0]!.safetyRatings).toEqual(blockedRatings);
    expect(filtered.text).toBe('Once upon a');
    // Blocked before any text: the candidate has no content, as Gemini answers it.
    const blocked = await generate();
    expect(blocked.candidates![0]).toEqual({ finishReason: 'SAFETY', index: 0, safetyRatings: blockedRatings });
    expect(blocked.text).toBeUndefined();
    const stopped = await generate({ stopSequences: ['THE END'] });
    expect([stopped.candidates![0]!.finishReason, stopped.text]).toEqual(['STOP', 'Once upon a time']);
    expect((await generate()).candidates![0]!.finishReason).toBe('MAX_TOKENS');
    fake.assertConsumed();
  });

  test("Gemini's own block reasons are sent as scripted, with what came before the cut", async () => {
    const names = ['RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'MALFORMED_FUNCTION_CALL'] as const;
    const fake = new FakeProvider();
    for (const name of names) fake.willSay('', { finish: name });
    fake.willSay('Once upon', { finish: 'RECITATION' });
    const client = genai(fake);
    const generate = () => client.models.generateContent({ model: 'gemini-2.5-flash', contents: 'Tell me a story.' });
    const candidates = [];
    for (const _name of names) candidates.push((await generate()).candidates![0]);
    expect(candidates).toEqual(names.map((finishReason) => ({ finishReason, index: 0 })));
    const recited = await generate();
    expect([recited.candidates![0]!.finishReason, recited.text]).toEqual(['RECITATION', 'Once upon']);
    fake.assertConsumed();
  });

  test('MALFORMED_FUNCTION_CALL answers a request that forces a call (mode ANY) without one; stop still owes the call', async () => {
    const fake = new FakeProvider().willSay('', { finish: 'MALFORMED_FUNCTION_CALL' }).willSay('Sunny.');
    const client = genai(fake);
    const config = {
      tools: [{ functionDeclarations: [{ name: 'get_weather', parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } } } }] }],
      toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.ANY } },
    };
    const generate = () => client.models.generateContent({ model: 'gemini-2.5-flash', contents: 'Weather in Paris?', config });
    expect((await generate()).candidates![0]).toEqual({ finishReason: 'MALFORMED_FUNCTION_CALL', index: 0 });
    const owed = await generate().catch((caught: unknown) => caught);
    expect(String(owed)).toContain("it answers without a tool call, and the request's toolConfig requires one");
  });

  test('streamed over alt=sse: MAX_TOKENS on the last text chunk; SAFETY in a last chunk of its own, without content', async () => {
    const fake = new FakeProvider()
      .willSay('Once upon a', { finish: 'length', chunks: { size: 5 } })
      .willSay('Once upon a', { finish: 'content-filter', chunks: { size: 5 } })
      .willSay('', { finish: 'content-filter' })
      .willSay('Once upon a time', { finish: 'stop-sequence' });
    const client = genai(fake);
    const length = await streamed(client);
    expect(length.map((chunk) => chunk.candidates![0]!.finishReason)).toEqual([undefined, undefined, 'MAX_TOKENS']);
    expect(length.map((chunk) => chunk.text).join('')).toBe('Once upon a');
    const filtered = await streamed(client);
    expect(filtered.map((chunk) => chunk.candidates![0]!.finishReason)).toEqual([undefined, undefined, undefined, 'SAFETY']);
    expect(filtered.map((chunk) => chunk.text ?? '').join('')).toBe('Once upon a');
    expect(filtered.at(-1)!.candidates![0]).toEqual({ finishReason: 'SAFETY', index: 0, safetyRatings: blockedRatings });
    expect(filtered.at(-1)!.usageMetadata!.candidatesTokenCount).toBeGreaterThan(0);
    const blocked = await streamed(client);
    expect(blocked.map((chunk) => chunk.candidates![0])).toEqual([{ finishReason: 'SAFETY', index: 0, safetyRatings: blockedRatings }]);
    const stopped = await streamed(client, { stopSequences: ['THE END'] });
    expect(stopped.at(-1)!.candidates![0]!.finishReason).toBe('STOP');
    expect(fake.calls().map((call) => call.path.endsWith(':streamGenerateContent?alt=sse'))).toEqual([true, true, true, true]);
    fake.assertConsumed();
  });

  test('streamed as a JSON array: the same finishes, element by element', () => {
    const fake = new FakeProvider()
      .willSay('Once upon a', { finish: 'length', chunks: { size: 5 } })
      .willSay('Once upon a', { finish: 'content-filter', chunks: { size: 5 } })
      .willSay('I will not.', { finish: 'refusal' });
    const ask = () =>
      arrayElements(fake.answer({ method: 'POST', path: '/v1beta/models/gemini-2.5-flash:streamGenerateContent', headers: {}, body: geminiBody() }));
    const length = ask();
    expect(length.map((element) => candidateOf(element)?.finishReason)).toEqual([undefined, undefined, 'MAX_TOKENS']);
    const filtered = ask();
    expect(filtered.map((element) => candidateOf(element)?.finishReason)).toEqual([undefined, undefined, undefined, 'SAFETY']);
    expect(candidateOf(filtered.at(-1)!)).toEqual({ finishReason: 'SAFETY', index: 0, safetyRatings: blockedRatings });
    const refused = ask();
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({ promptFeedback: { blockReason: 'SAFETY', safetyRatings: blockedRatings } });
    expect(refused[0]!.candidates).toBeUndefined();
    fake.assertConsumed();
  });

  test('refusal blocks the prompt: promptFeedback.blockReason SAFETY, no candidates, JSON and streamed', async () => {
    const fake = new FakeProvider().willSay('I will not.', { finish: 'refusal' }).willSay('I will not.', { finish: 'refusal' });
    const client = genai(fake);
    const refused = await client.models.generateContent({ model: 'gemini-2.5-flash', contents: 'Tell me a story.' });
    expect(refused.candidates).toBeUndefined();
    expect(refused.promptFeedback).toEqual({ blockReason: 'SAFETY', safetyRatings: blockedRatings });
    expect(refused.text).toBeUndefined();
    // A blocked prompt costs its prompt tokens and nothing else.
    expect(refused.usageMetadata!.totalTokenCount).toBe(refused.usageMetadata!.promptTokenCount);
    expect(refused.usageMetadata!.candidatesTokenCount).toBeUndefined();
    expect(JSON.stringify(refused)).not.toContain('I will not.');
    const chunks = await streamed(client);
    expect(chunks).toHaveLength(1);
    expect(chunks[0]!.promptFeedback?.blockReason).toBe('SAFETY');
    fake.assertConsumed();
  });
});

describe('Gemini finishes through @ai-sdk/google', () => {
  test("finishReason is 'length' and 'content-filter' (SAFETY, a Gemini block reason, a blocked prompt), generated and streamed", async () => {
    const fake = new FakeProvider();
    const finishes: Array<NonNullable<StepOptions['finish']>> = ['length', 'content-filter', 'PROHIBITED_CONTENT', 'refusal'];
    for (let round = 0; round < 2; round++) for (const finish of finishes) fake.willSay('Once upon a', { finish });
    const model = createGoogleGenerativeAI({ apiKey: 'fake-key', fetch: fake.fetch })('gemini-2.5-flash');
    const generated: string[] = [];
    for (const _finish of finishes) generated.push((await generateText({ model, prompt: 'Tell me a story.', maxRetries: 0 })).finishReason);
    const streamedReasons: string[] = [];
    for (const _finish of finishes) streamedReasons.push(await streamText({ model, prompt: 'Tell me a story.', maxRetries: 0 }).finishReason);
    expect(generated).toEqual(['length', 'content-filter', 'content-filter', 'content-filter']);
    expect(streamedReasons).toEqual(generated);
    fake.assertConsumed();
  });
});

describe('Ollama finishes', () => {
  test("length is done_reason 'length' through the ollama client: chat and generate, JSON and NDJSON", async () => {
    const fake = new FakeProvider();
    for (let index = 0; index < 4; index++) fake.willSay('Once upon a', { finish: 'length' });
    fake.willSay('Once upon a time', { finish: 'stop-sequence' });
    const ollama = new Ollama({ host: 'http://127.0.0.1:11434', fetch: fake.fetch });
    const messages = [{ role: 'user', content: 'Tell me a story.' }];
    const chat = await ollama.chat({ model: 'llama3.2', messages, stream: false });
    expect([chat.done_reason, chat.message.content]).toEqual(['length', 'Once upon a']);
    const chatParts = [];
    for await (const part of await ollama.chat({ model: 'llama3.2', messages, stream: true })) chatParts.push(part);
    expect(chatParts.map((part) => part.done_reason ?? null).at(-1)).toBe('length');
    expect(chatParts.slice(0, -1).every((part) => part.done_reason === undefined)).toBe(true);
    const generated = await ollama.generate({ model: 'llama3.2', prompt: 'Tell me a story.', stream: false });
    expect([generated.done_reason, generated.response]).toEqual(['length', 'Once upon a']);
    const generatedParts = [];
    for await (const part of await ollama.generate({ model: 'llama3.2', prompt: 'Tell me a story.', stream: true })) generatedParts.push(part);
    expect(generatedParts.at(-1)!.done_reason).toBe('length');
    // A stop sequence ends as Ollama reports it: stop.
    const stopped = await ollama.chat({ model: 'llama3.2', messages, stream: false, options: { stop: ['THE END'] } });
    expect(stopped.done_reason).toBe('stop');
    fake.assertConsumed();
  });

  test("finishReason is 'length' through ollama-ai-provider-v2, generated and streamed", async () => {
    const fake = new FakeProvider().willSay('Once upon a', { finish: 'length' }).willSay('Once upon a', { finish: 'length' }).willSay('The end.');
    const model = createOllama({ fetch: fake.fetch })('llama3.2');
    const generated = await generateText({ model, prompt: 'Tell me a story.', maxRetries: 0 });
    expect([generated.finishReason, generated.text]).toEqual(['length', 'Once upon a']);
    expect(await streamText({ model, prompt: 'Tell me a story.', maxRetries: 0 }).finishReason).toBe('length');
    expect((await generateText({ model, prompt: 'Tell me a story.', maxRetries: 0 })).finishReason).toBe('stop');
    fake.assertConsumed();
  });
});

describe('finishes that do not apply to Gemini or Ollama are loud', () => {
  test('a Gemini stop sequence needs generationConfig.stopSequences; Ollama has no content filter', () => {
    const gemini = (fake: FakeProvider, extra: Record<string, unknown> = {}) =>
      fake.answer({ method: 'POST', path: '/v1beta/models/gemini-2.5-flash:generateContent', headers: {}, body: geminiBody(extra) });
    const none = gemini(new FakeProvider().willSay('x', { finish: 'stop-sequence' }));
    expect(errorMessage(none)).toContain(
      'the request sent no generationConfig.stopSequences.\nSend generationConfig.stopSequences in the request, or script finish',
    );
    expect(gemini(new FakeProvider().willSay('x', { finish: 'stop-sequence' }), { generationConfig: { stopSequences: ['END'] } }).status).toBe(200);
    const pause = gemini(new FakeProvider().willSay('x', { finish: 'pause-turn' }));
    expect(errorMessage(pause)).toContain(
      'finish "pause-turn" does not apply to gemini-generate.\nScript one of stop, length, content-filter, refusal, stop-sequence, MAX_TOKENS, SAFETY, RECITATION, BLOCKLIST, PROHIBITED_CONTENT, SPII, MALFORMED_FUNCTION_CALL.',
    );
    const ollama = new FakeProvider().willSay('x', { finish: 'content-filter' });
    const body = JSON.stringify({ model: 'llama3.2', messages: [{ role: 'user', content: 'hi' }], stream: false });
    expect(errorMessage(ollama.answer({ method: 'POST', path: '/api/chat', headers: {}, body }))).toContain(
      'finish "content-filter" does not apply to ollama-chat.\nScript one of stop, length, stop-sequence.',
    );
    // Gemini's names are Gemini's: another API does not take them.
    const chat = new FakeProvider().willSay('x', { finish: 'MAX_TOKENS' });
    const onChat = chat.answer({
      method: 'POST',
      path: '/v1/chat/completions',
      headers: {},
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(errorMessage(onChat)).toContain('finish "MAX_TOKENS" does not apply to openai-chat.');
  });
});

function errorMessage(wire: WireResponse): string {
  expect(wire.status).toBe(422);
  const body = JSON.parse(String(wire.body)) as { error: { message: string } | string };
  return typeof body.error === 'string' ? body.error : body.error.message;
}

function arrayElements(wire: WireResponse): Array<Record<string, unknown>> {
  expect(wire.status).toBe(200);
  return JSON.parse((wire.frames ?? []).join('')) as Array<Record<string, unknown>>;
}

function candidateOf(element: Record<string, unknown>): Record<string, unknown> | undefined {
  return (element.candidates as Array<Record<string, unknown>> | undefined)?.[0];
}
