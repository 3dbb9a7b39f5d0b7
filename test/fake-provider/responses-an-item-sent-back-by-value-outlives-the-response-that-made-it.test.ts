import OpenAI from 'openai';
import { describe, expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';

describe('Responses store: an item two kept responses hold', () => {
  test('stays referable after the older response is dropped past historyLimit, and goes with the last one that holds it', async () => {
    const fake = new FakeProvider({ historyLimit: 2 }).willSay('Paris.').willSay('Lyon.').willSay('Nice.').willSay('Found it.').willSay('One.').willSay('Two.');
    const openai = new OpenAI({ apiKey: 'fake-key', fetch: fake.fetch, maxRetries: 0 });
    const first = await openai.responses.create({ model: 'gpt-4o', input: 'Where?' });
    const item = first.output[0]!;
    expect(item.type).toBe('message');
    // The client sends r1's output item back by value, with its id, as a stateless loop does.
    await openai.responses.create({
      model: 'gpt-4o',
      input: [{ role: 'user', content: 'Where?' }, item as OpenAI.Responses.ResponseInputItem, { role: 'user', content: 'And then?' }],
    });
    await openai.responses.create({ model: 'gpt-4o', input: 'Elsewhere?' });
    // r1 is dropped (historyLimit 2), and r2 still holds the item.
    const gone = await openai.responses.retrieve(first.id).catch((caught: unknown) => caught);
    expect(gone).toBeInstanceOf(OpenAI.NotFoundError);
    const found = await openai.responses.create({ model: 'gpt-4o', input: [{ type: 'item_reference', id: item.id! }] });
    expect(found.output_text).toBe('Found it.');
    expect(
      fake
        .asked({ latest: true })
        .at(-1)!
        .messages.map((message) => [message.role, message.text]),
    ).toEqual([['assistant', 'Paris.']]);
    // r4 stood on the item too; once r2 and r4 are both dropped nothing holds it, and the 404 says so.
    for (const input of ['One?', 'Two?']) await openai.responses.create({ model: 'gpt-4o', input });
    const dropped = await openai.responses.create({ model: 'gpt-4o', input: [{ type: 'item_reference', id: item.id! }] }).catch((caught: unknown) => caught);
    expect(dropped).toBeInstanceOf(OpenAI.NotFoundError);
    expect((dropped as Error).message).toContain('historyLimit');
    fake.assertConsumed();
  });
});
