import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { readMessagesRequest } from './read-request.js';

const answer = JSON.parse(readFileSync(new URL('../../../test/fixtures/samples/anthropic/message.json', import.meta.url), 'utf8')) as { content: unknown[] };

describe('readMessagesRequest keeps every message as sent, as typed parts with their JSON paths', () => {
  test('system blocks, an image and a document, thinking, redacted thinking, a real answer sent back, tool use and results', () => {
    const turn = readMessagesRequest(
      {
        model: 'claude-sonnet-4-5',
        max_tokens: 100,
        system: [{ type: 'text', text: 'Be brief.' }],
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Hello' },
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
              { type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' } },
            ],
          },
          { role: 'assistant', content: answer.content },
          { role: 'user', content: 'Weather?' },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: 'Look it up.', signature: 'fake-signature' },
              { type: 'redacted_thinking', data: 'fake-encrypted' },
              { type: 'tool_use', id: 't1', name: 'look', input: { x: 1 } },
            ],
          },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'rain' }], is_error: true }] },
        ],
      },
      0,
    );
    expect(turn.items.map((item) => [item.path, item.role, item.parts.map((part) => `${part.kind} ${part.path}`)])).toEqual([
      ['.system', 'system', ['text .system[0].text']],
      ['.messages[0]', 'user', ['text .messages[0].content[0].text', 'image .messages[0].content[1]', 'file .messages[0].content[2]']],
      ['.messages[1]', 'assistant', ['text .messages[1].content[0].text']],
      ['.messages[2]', 'user', ['text .messages[2].content']],
      [
        '.messages[3]',
        'assistant',
        ['thinking .messages[3].content[0].thinking', 'redacted-thinking .messages[3].content[1]', 'tool-call .messages[3].content[2]'],
      ],
      ['.messages[4]', 'user', ['tool-result .messages[4].content[0]']],
    ]);
    expect(turn.items[1]!.parts.slice(1)).toEqual([
      {
        kind: 'image',
        path: '.messages[0].content[1]',
        type: 'image',
        source: { path: '.messages[0].content[1].source', value: expect.any(Object) },
        mediaType: 'image/png',
        bytes: 8,
      },
      {
        kind: 'file',
        path: '.messages[0].content[2]',
        type: 'document',
        source: { path: '.messages[0].content[2].source', value: expect.any(Object) },
        url: 'https://example.com/a.pdf',
      },
    ]);
    expect(turn.items[4]!.parts[1]).toEqual({
      kind: 'redacted-thinking',
      path: '.messages[3].content[1]',
      data: { path: '.messages[3].content[1].data', value: 'fake-encrypted' },
    });
    expect(turn.items[5]!.parts[0]).toMatchObject({
      toolCallId: 't1',
      idPath: '.messages[4].content[0].tool_use_id',
      name: 'look',
      isError: true,
      parts: [{ kind: 'text', text: 'rain' }],
    });
    // The tool message the model is shown holds the result's content.
    expect(turn.messages.at(-1)).toMatchObject({
      role: 'tool',
      path: '.messages[4].content[0]',
      text: 'rain',
      parts: [{ kind: 'text', path: '.messages[4].content[0].content[0].text' }],
    });
    expect(turn.messages[1]!.text).toBe((answer.content[0] as { text: string }).text);
  });
});
