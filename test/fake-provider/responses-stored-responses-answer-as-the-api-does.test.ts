import OpenAI from 'openai';
import { describe, expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';
import { validateAgainstSpec } from '../support/spec-validator.js';

const weather = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
const tools = [{ type: 'function' as const, name: 'get_weather', parameters: weather, strict: true }];

function clientOf(fake: FakeProvider): OpenAI {
  return new OpenAI({ apiKey: 'fake-key', fetch: fake.fetch, maxRetries: 0 });
}

describe('stored responses answer retrieve, input_items, delete and cancel as the API does', () => {
  test('retrieve gives the stored response, JSON or streamed, as the spec types it', async () => {
    const fake = new FakeProvider().willSay('Hello.').willSay('Streamed hello.');
    const openai = clientOf(fake);
    const created = await openai.responses.create({ model: 'gpt-4o', input: 'Hi', metadata: { run: '1' } });
    const retrieved = await openai.responses.retrieve(created.id);
    expect(retrieved.id).toBe(created.id);
    expect(retrieved.output_text).toBe('Hello.');
    expect(JSON.parse(JSON.stringify(retrieved))).toEqual(JSON.parse(JSON.stringify(created)));
    expect(validateAgainstSpec('openai', 'Response', JSON.parse(JSON.stringify(retrieved))).errors).toEqual([]);

    const stream = await openai.responses.create({ model: 'gpt-4o', input: 'Hi again', stream: true });
    let completedId = '';
    for await (const event of stream) if (event.type === 'response.completed') completedId = event.response.id;
    const again = await openai.responses.retrieve(completedId);
    expect(again.status).toBe('completed');
    expect(again.output_text).toBe('Streamed hello.');
    // Through the /openai prefix too.
    const prefixed = await fake.fetch(`https://fake.test/openai/v1/responses/${completedId}`);
    expect(prefixed.status).toBe(200);
    expect(((await prefixed.json()) as { id: string }).id).toBe(completedId);
    // A stored stream is not replayed: the fake says so rather than answer JSON to a stream reader.
    const replay = await fake.fetch(`https://api.openai.com/v1/responses/${completedId}?stream=true`);
    expect(replay.status).toBe(422);
    expect(((await replay.json()) as { error: { message: string } }).error.message).toContain('does not replay a stored response as a stream');
  });

  test('include[]=reasoning.encrypted_content on retrieve seals the reasoning, and without it the content is left out', async () => {
    const fake = new FakeProvider().willSay('Four.');
    const openai = clientOf(fake);
    const created = await openai.responses.create({ model: 'o4-mini', input: '2+2?' });
    const plain = await openai.responses.retrieve(created.id);
    const reasoning = plain.output[0]!;
    expect(reasoning.type).toBe('reasoning');
    expect(reasoning).not.toHaveProperty('encrypted_content');
    const sealed = await openai.responses.retrieve(created.id, { include: ['reasoning.encrypted_content'] });
    expect((sealed.output[0] as { encrypted_content?: string }).encrypted_content).toMatch(/^fake-encrypted-reasoning\./);
    expect(fake.calls().at(-1)!.path).toBe(`/v1/responses/${created.id}?include%5B%5D=reasoning.encrypted_content`);
  });

  test('input_items lists the response input, newest first by default, paged by limit and after', async () => {
    const fake = new FakeProvider().willSay('Done.');
    const openai = clientOf(fake);
    const created = await openai.responses.create({
      model: 'gpt-4o',
      input: [
        { role: 'developer', content: 'Be brief.' },
        { role: 'user', content: 'One' },
        { role: 'user', content: [{ type: 'input_text', text: 'Two' }] },
      ],
    });
    const page = await openai.responses.inputItems.list(created.id);
    const texts = page.data.map((item) => (item.type === 'message' ? (item.content[0] as { text: string }).text : item.type));
    expect(texts).toEqual(['Two', 'One', 'Be brief.']);
    const listed = (await (await fake.fetch(`https://api.openai.com/v1/responses/${created.id}/input_items`)).json()) as Record<string, unknown>;
    expect(listed).toMatchObject({ object: 'list', first_id: 'fake-item-2', last_id: 'fake-item-0', has_more: false });
    expect(validateAgainstSpec('openai', 'ResponseItemList', listed).errors).toEqual([]);
    expect(page.data.map((item) => item.id)).toEqual(['fake-item-2', 'fake-item-1', 'fake-item-0']);

    const ascending = await openai.responses.inputItems.list(created.id, { order: 'asc', limit: 2 });
    expect(ascending.data.map((item) => item.id)).toEqual(['fake-item-0', 'fake-item-1']);
    expect(ascending.has_more).toBe(true);
    const rest = await ascending.getNextPage();
    expect(rest.data.map((item) => item.id)).toEqual(['fake-item-2']);
    expect(rest.has_more).toBe(false);
    let walked = 0;
    for await (const _item of openai.responses.inputItems.list(created.id, { limit: 1 })) walked++;
    expect(walked).toBe(3);

    const raw = await fake.fetch(`https://api.openai.com/v1/responses/${created.id}/input_items?limit=101`);
    expect(raw.status).toBe(400);
    expect(((await raw.json()) as { error: { code: string } }).error.code).toBe('integer_above_max_value');
  });

  test('delete answers the deleted object, and the id is gone after: a later previous_response_id gets the 400', async () => {
    const fake = new FakeProvider().willSay('Hello.').willSay('never');
    const openai = clientOf(fake);
    const created = await openai.responses.create({ model: 'gpt-4o', input: 'Hi' });
    await openai.responses.delete(created.id);
    const deleted = fake.calls().at(-1)!;
    expect(deleted.method).toBe('DELETE');
    expect(deleted.status).toBe(200);
    const raw = await fake.fetch(`https://api.openai.com/v1/responses/${created.id}`, { method: 'DELETE' });
    expect(raw.status).toBe(404);
    const gone = await openai.responses.retrieve(created.id).catch((caught: unknown) => caught);
    expect(gone).toBeInstanceOf(OpenAI.NotFoundError);
    expect((gone as Error).message).toContain(`Response with id '${created.id}' not found.`);
    const chained = await openai.responses.create({ model: 'gpt-4o', input: 'more', previous_response_id: created.id }).catch((caught: unknown) => caught);
    expect(chained).toBeInstanceOf(OpenAI.BadRequestError);
    expect((chained as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('previous_response_not_found');
  });

  test('the deleted object is what the API answers', async () => {
    const fake = new FakeProvider().willSay('Hello.');
    const created = (await (
      await fake.fetch('https://api.openai.com/v1/responses', { method: 'POST', body: JSON.stringify({ model: 'gpt-4o', input: 'Hi' }) })
    ).json()) as { id: string };
    const answer = await fake.fetch(`https://api.openai.com/openai/v1/responses/${created.id}`, { method: 'DELETE' });
    expect(await answer.json()).toEqual({ id: created.id, object: 'response.deleted', deleted: true });
  });

  test('cancel refuses a response that was not made in the background, and gives back a finished background one', async () => {
    const fake = new FakeProvider().willSay('Hello.').willSay('In the background.');
    const openai = clientOf(fake);
    const created = await openai.responses.create({ model: 'gpt-4o', input: 'Hi' });
    const refused = await openai.responses.cancel(created.id).catch((caught: unknown) => caught);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect((refused as Error).message).toContain('Cannot cancel a synchronous response.');
    const background = await openai.responses.create({ model: 'gpt-4o', input: 'Hi', background: true });
    const cancelled = await openai.responses.cancel(background.id);
    expect(cancelled.id).toBe(background.id);
    expect(cancelled.status).toBe('completed');
  });

  test('an unknown id is a 404 in OpenAI error shape on every route, and one dropped past historyLimit says so', async () => {
    const fake = new FakeProvider({ historyLimit: 1 }).willSay('one').willSay('two');
    const openai = clientOf(fake);
    const routes: Array<[string, string]> = [
      ['GET', '/v1/responses/resp_unknown'],
      ['DELETE', '/v1/responses/resp_unknown'],
      ['GET', '/v1/responses/resp_unknown/input_items'],
      ['POST', '/v1/responses/resp_unknown/cancel'],
    ];
    for (const [method, path] of routes) {
      const answer = await fake.fetch(`https://api.openai.com${path}`, { method });
      expect(answer.status).toBe(404);
      const body = (await answer.json()) as Record<string, unknown>;
      expect(body).toEqual({ error: { message: "Response with id 'resp_unknown' not found.", type: 'invalid_request_error', param: null, code: null } });
      expect(validateAgainstSpec('openai', 'ErrorResponse', body).errors).toEqual([]);
    }
    const first = await openai.responses.create({ model: 'gpt-4o', input: 'one' });
    await openai.responses.create({ model: 'gpt-4o', input: 'two' });
    const dropped = await openai.responses.retrieve(first.id).catch((caught: unknown) => caught);
    expect(dropped).toBeInstanceOf(OpenAI.NotFoundError);
    expect((dropped as Error).message).toContain('historyLimit');
    expect(routes).toHaveLength(4);
  });

  test('a response made with store: false is not kept', async () => {
    const fake = new FakeProvider().willCallTool('get_weather', { city: 'Paris' });
    const openai = clientOf(fake);
    const created = await openai.responses.create({ model: 'gpt-4o', input: 'Weather?', tools, store: false });
    const gone = await openai.responses.retrieve(created.id).catch((caught: unknown) => caught);
    expect(gone).toBeInstanceOf(OpenAI.NotFoundError);
  });

  test('the routes are served over HTTP too', async () => {
    const fake = new FakeProvider().willSay('Over HTTP.');
    const server = await fake.listen();
    try {
      const openai = new OpenAI({ apiKey: 'fake-key', baseURL: `${server.url}/openai/v1`, maxRetries: 0 });
      const created = await openai.responses.create({ model: 'gpt-4o', input: 'Hi' });
      expect((await openai.responses.retrieve(created.id)).output_text).toBe('Over HTTP.');
      expect((await openai.responses.inputItems.list(created.id)).data).toHaveLength(1);
      await openai.responses.delete(created.id);
      expect(fake.calls().map((call) => `${call.method} ${call.api} ${call.status}`)).toEqual([
        'POST openai-responses 200',
        'GET openai-responses-stored 200',
        'GET openai-responses-stored 200',
        'DELETE openai-responses-stored 200',
      ]);
    } finally {
      await server.close();
    }
  });
});
