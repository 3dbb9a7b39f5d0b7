import { generateText, streamText } from 'ai';
import { Ollama } from 'ollama';
import { createOllama } from 'ollama-ai-provider-v2';
import { afterEach, describe, expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';

type Transport = 'fetch' | 'http' | 'http under /ollama';
const TRANSPORTS: Transport[] = ['fetch', 'http', 'http under /ollama'];
const hi = [{ role: 'user' as const, content: 'Hi' }];

describe.each(TRANSPORTS)('Ollama model management and thinking against the fake, over %s', (transport) => {
  let servers: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const server of servers) await server.close();
    servers = [];
  });

  /** The host the clients are given, the fetch that reaches it, and the `ollama` client. */
  async function reach(fake: FakeProvider, rewrite?: (url: string) => string): Promise<{ host: string; send: typeof fetch; ollama: Ollama }> {
    let host = 'http://127.0.0.1:11434';
    let send = fake.fetch as typeof fetch;
    if (transport !== 'fetch') {
      const server = await fake.listen({ port: 0 });
      servers.push(server);
      host = transport === 'http' ? server.url : `${server.url}/ollama`;
      send = fetch;
    }
    const through: typeof fetch = rewrite === undefined ? send : (input, init) => send(rewrite(String(input)), init);
    return { host, send, ollama: new Ollama({ host, fetch: through }) };
  }

  test('show tells a held model’s details, capabilities and a modelfile that says it is fake; version and GET / answer', async () => {
    const fake = new FakeProvider();
    const { host, send, ollama } = await reach(fake);
    const shown = await ollama.show({ model: 'llama3.2' });
    expect(shown.details).toEqual({
      parent_model: '',
      format: 'gguf',
      family: 'llama',
      families: ['llama'],
      parameter_size: '3.2B',
      quantization_level: 'Q4_K_M',
    });
    expect(shown.capabilities).toEqual(['completion', 'tools']);
    expect(shown.modelfile).toContain('modeltape FakeProvider');
    expect(shown.modelfile).toContain('FROM fake-llama3.2:latest');
    expect(shown.template).toContain('{{ .Prompt }}');
    expect(shown.model_info).toMatchObject({ 'general.architecture': 'llama', 'general.parameter_count': 3_200_000_000, 'llama.context_length': 131072 });
    expect(shown.modified_at).toBe('2026-01-01T00:00:00.000Z');
    expect((await ollama.show({ model: 'fake-qwen3:latest' })).capabilities).toEqual(['completion', 'tools', 'thinking']);

    expect(await ollama.version()).toEqual({ version: '0.13.0-modeltape-fake' });
    expect(fake.calls().map((call) => [call.method, call.api])).toEqual([
      ['POST', 'ollama-models'],
      ['POST', 'ollama-models'],
      ['GET', 'ollama-models'],
    ]);
    // The root is Ollama's only where the path says so: the fake serves every provider at its own root.
    const root = await send(`${host}/`);
    if (transport === 'http under /ollama') {
      expect(root.status).toBe(200);
      expect(await root.text()).toBe('Ollama is running');
      expect(root.headers.get('x-modeltape-fake')).toBe('1');
    } else expect(root.status).toBe(404);
  });

  test('pull streams its progress ending in success, or answers one success object; the pulled model is then listed and shown', async () => {
    const fake = new FakeProvider();
    const { ollama } = await reach(fake);
    const progress = [];
    for await (const part of await ollama.pull({ model: 'mistral', stream: true })) progress.push(part);
    expect(progress.map((part) => part.status)).toEqual([
      'pulling manifest',
      expect.stringMatching(/^pulling [0-9a-f]{12}$/),
      'verifying sha256 digest',
      'writing manifest',
      'success',
    ]);
    expect(progress[1]).toMatchObject({ digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/), total: expect.any(Number), completed: expect.any(Number) });
    expect(await ollama.pull({ model: 'phi3:mini' })).toEqual({ status: 'success' });
    expect((await ollama.list()).models.map((model) => model.name)).toEqual([
      'fake-llama3.2:latest',
      'fake-qwen3:latest',
      'fake-nomic-embed-text:latest',
      'fake-mistral:latest',
      'fake-phi3:mini',
    ]);
    expect((await ollama.show({ model: 'mistral:latest' })).details.family).toBe('mistral');
  });

  test('copy adds the destination, delete removes a model, and a model the fake does not hold is the real 404', async () => {
    const fake = new FakeProvider();
    const { ollama } = await reach(fake);
    expect(await ollama.copy({ source: 'llama3.2', destination: 'my-llama' })).toEqual({ status: 'success' });
    expect((await ollama.show({ model: 'my-llama' })).details.family).toBe('llama');
    expect(await ollama.delete({ model: 'my-llama' })).toEqual({ status: 'success' });
    const gone = await ollama.show({ model: 'my-llama' }).catch((error: unknown) => error as { status_code: number; error: string });
    expect(gone).toMatchObject({ status_code: 404, error: "model 'my-llama' not found" });
    const deleteMissing = await ollama.delete({ model: 'my-llama' }).catch((error: unknown) => error as { status_code: number; error: string });
    expect(deleteMissing).toMatchObject({ status_code: 404, error: "model 'my-llama' not found" });
    // CopyHandler quotes the name with %q.
    const copyMissing = await ollama.copy({ source: 'nothing', destination: 'x' }).catch((error: unknown) => error as { status_code: number; error: string });
    expect(copyMissing).toMatchObject({ status_code: 404, error: 'model "nothing" not found' });
    expect(fake.calls().map((call) => call.status)).toEqual([200, 200, 200, 404, 404, 404]);
  });

  test('create from a held model and push stream their progress; ps lists the models turns loaded', async () => {
    const fake = new FakeProvider().willSay('Hello.');
    const { ollama } = await reach(fake);
    expect((await ollama.ps()).models).toEqual([]);
    const created = [];
    for await (const part of await ollama.create({ model: 'helper', from: 'llama3.2', system: 'Be brief.', stream: true })) created.push(part.status);
    expect(created).toEqual([expect.stringMatching(/^using existing layer sha256:[0-9a-f]{64}$/), 'writing manifest', 'success']);
    expect(await ollama.push({ model: 'helper' })).toEqual({ status: 'success' });
    await ollama.chat({ model: 'helper', messages: hi });
    const running = await ollama.ps();
    expect(running.models.map((model) => model.name)).toEqual(['fake-helper:latest']);
    expect(running.models[0]!.expires_at).toBe('2026-01-01T00:05:00.000Z');
    expect(running.models[0]!.details.family).toBe('llama');
  });

  test('think on chat: message.thinking before the content, streamed first; absent think on a thinking model thinks too', async () => {
    const fake = new FakeProvider().willSay('Paris.').willSay('Paris.').willSay('Paris.').willSay('Paris.');
    const { ollama } = await reach(fake);
    const answer = await ollama.chat({ model: 'qwen3', messages: hi, think: true });
    expect(answer.message).toEqual({ role: 'assistant', content: 'Paris.', thinking: 'Thinking (modeltape FakeProvider, call 0): I will answer in text.' });
    expect(answer.eval_count).toBeGreaterThan(2);
    const parts = [];
    for await (const part of await ollama.chat({ model: 'qwen3', messages: hi, think: 'high', stream: true })) parts.push(part);
    expect(parts[0]!.message).toEqual({ role: 'assistant', content: '', thinking: 'Thinking (modeltape FakeProvider, call 1): I will answer in text.' });
    expect(parts.slice(1).map((part) => part.message.thinking)).toEqual(parts.slice(1).map(() => undefined));
    expect(parts.map((part) => part.message.content).join('')).toBe('Paris.');
    expect(parts.at(-1)!.done).toBe(true);
    // Ollama turns thinking on for a model that has it when the request says nothing.
    expect((await ollama.chat({ model: 'qwen3', messages: hi })).message.thinking).toContain('call 2');
    expect((await ollama.chat({ model: 'qwen3', messages: hi, think: false })).message.thinking).toBeUndefined();
    fake.assertConsumed();
  });

  test('think on generate: `thinking` beside the response, streamed first; a model without the capability is the real 400', async () => {
    const fake = new FakeProvider().willSay('Blue.').willSay('Blue.');
    const { ollama } = await reach(fake);
    const answer = await ollama.generate({ model: 'deepseek-r1:8b', prompt: 'Sky?', think: 'low' });
    expect(answer.response).toBe('Blue.');
    expect(answer.thinking).toBe('Thinking (modeltape FakeProvider, call 0): I will answer in text.');
    const parts = [];
    for await (const part of await ollama.generate({ model: 'deepseek-r1:8b', prompt: 'Sky?', think: true, stream: true })) parts.push(part);
    expect(parts[0]).toMatchObject({ response: '', thinking: expect.stringContaining('call 1') });
    expect(
      parts
        .slice(1)
        .map((part) => part.response)
        .join(''),
    ).toBe('Blue.');

    const refused = await ollama
      .chat({ model: 'llama3.2', messages: hi, think: true })
      .catch((error: unknown) => error as { status_code: number; error: string });
    expect(refused).toMatchObject({ status_code: 400, error: '"llama3.2" does not support thinking' });
    const refusedGenerate = await ollama
      .generate({ model: 'llama3.2', prompt: 'Sky?', think: 'medium' })
      .catch((error: unknown) => error as { status_code: number; error: string });
    expect(refusedGenerate).toMatchObject({ status_code: 400, error: '"llama3.2" does not support thinking' });
    expect(fake.asked()).toHaveLength(2);
  });

  test('ollama-ai-provider-v2 with think reads the thinking as reasoning, and the text stays the answer', async () => {
    const fake = new FakeProvider().willSay('Paris.').willSay('Paris.');
    const { host, send } = await reach(fake);
    const provider = createOllama({ baseURL: `${host}/api`, fetch: send });
    const result = await generateText({ model: provider('qwen3'), prompt: 'Capital?', providerOptions: { ollama: { think: true } } });
    expect(result.text).toBe('Paris.');
    expect(result.reasoningText).toBe('Thinking (modeltape FakeProvider, call 0): I will answer in text.');
    const streamed = streamText({ model: provider('qwen3'), prompt: 'Capital?', providerOptions: { ollama: { think: true } } });
    const kinds: string[] = [];
    for await (const part of streamed.fullStream) if (part.type === 'reasoning-delta' || part.type === 'text-delta') kinds.push(part.type);
    expect(kinds[0]).toBe('reasoning-delta');
    expect(await streamed.text).toBe('Paris.');
  });

  test('a route the fake does not serve is Gin’s plain-text 404, which the ollama client raises as the real server’s; the help is in a header and in problems()', async () => {
    const fake = new FakeProvider();
    // A client calling a route this fake lacks (here /api/show, sent to /api/unserved).
    const { host, send, ollama } = await reach(fake, (url) => url.replace('/api/show', '/api/unserved'));
    const error = await ollama.show({ model: 'llama3.2' }).catch((caught: unknown) => caught as { status_code: number; error: string; name: string });
    expect(error).toMatchObject({ name: 'ResponseError', status_code: 404, error: '404 page not found' });
    const raw = await send(`${host}/api/unserved`, { method: 'POST', body: '{}' });
    expect(raw.status).toBe(404);
    expect(raw.headers.get('content-type')).toBe('text/plain');
    expect(await raw.text()).toBe('404 page not found');
    const hint = raw.headers.get('x-modeltape-fake-hint')!;
    expect(hint).toMatch(/^Invalid URL \(POST \/(ollama\/)?api\/unserved\): the modeltape FakeProvider serves /);
    expect(hint).toContain('/api/show');
    expect(fake.problems()).toHaveLength(2);
    expect(() => fake.assertConsumed()).toThrow(/Invalid URL \(POST \/(ollama\/)?api\/unserved\)/);
  });
});
