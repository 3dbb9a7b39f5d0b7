import OpenAI from 'openai';
import { expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';

const empty = { type: 'object' as const, properties: {} };
const tools = [
  { type: 'function' as const, function: { name: 'a', parameters: empty } },
  { type: 'function' as const, function: { name: 'b', parameters: empty } },
];

test('willCallTool after the previous tool turn was answered starts a new turn instead of joining the spent one', async () => {
  const fake = new FakeProvider().willCallTool('a', {});
  const openai = new OpenAI({ apiKey: 'fake-key', fetch: fake.fetch, maxRetries: 0 });
  await openai.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'first' }], tools });
  // Scripting as the test goes: the next turn should call b.
  fake.willCallTool('b', {});
  const second = await openai.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'second' }], tools });
  expect(second.choices[0]!.message.tool_calls!.map((call) => (call.type === 'function' ? call.function.name : call.type))).toEqual(['b']);
});
