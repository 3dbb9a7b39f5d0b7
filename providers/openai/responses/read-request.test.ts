import { describe, expect, test } from 'vitest';
import { readResponsesRequest } from './read-request.js';

describe('readResponsesRequest keeps every input item as sent, as typed parts with their JSON paths', () => {
  test('instructions, an image by URL and by file id, a refusal, calls and outputs, and items it does not know', () => {
    const turn = readResponsesRequest(
      {
        model: 'gpt-5',
        instructions: 'Be brief.',
        input: [
          {
            role: 'user',
            content: [
              { type: 'input_text', text: 'What is this?' },
              { type: 'input_image', image_url: 'https://example.com/cat.png' },
              { type: 'input_image', file_id: 'file-1' },
            ],
          },
          { type: 'reasoning', id: 'rs_1', summary: [] },
          {
            type: 'message',
            role: 'assistant',
            content: [
              { type: 'output_text', text: 'A cat.', annotations: [] },
              { type: 'refusal', refusal: 'No more.' },
            ],
          },
          { type: 'function_call', call_id: 'c1', name: 'look', arguments: '{"x":1}' },
          { type: 'function_call_output', call_id: 'c1', output: 'seen' },
          { type: 'custom_tool_call', call_id: 'c2', name: 'grammar', input: 'abc' },
        ],
      },
      0,
    );
    expect(turn.items.map((item) => [item.path, item.role, item.parts.map((part) => `${part.kind} ${part.path}`)])).toEqual([
      ['.instructions', 'system', ['text .instructions']],
      ['.input[0]', 'user', ['text .input[0].content[0].text', 'image .input[0].content[1]', 'image .input[0].content[2]']],
      ['.input[1]', undefined, ['unknown .input[1]']],
      ['.input[2]', 'assistant', ['text .input[2].content[0].text', 'refusal .input[2].content[1].refusal']],
      ['.input[3]', 'assistant', ['tool-call .input[3]']],
      ['.input[4]', 'tool', ['tool-result .input[4]']],
      ['.input[5]', 'assistant', ['tool-call .input[5]']],
    ]);
    expect(turn.items[1]!.parts.slice(1)).toEqual([
      {
        kind: 'image',
        path: '.input[0].content[1]',
        type: 'input_image',
        source: { path: '.input[0].content[1].image_url', value: 'https://example.com/cat.png' },
        url: 'https://example.com/cat.png',
      },
      { kind: 'image', path: '.input[0].content[2]', type: 'input_image', source: { path: '.input[0].content[2].file_id', value: 'file-1' } },
    ]);
    expect(turn.items[2]!.parts[0]).toMatchObject({ type: 'reasoning', value: { id: 'rs_1' } });
    expect(turn.items[4]!.parts[0]).toMatchObject({
      id: 'c1',
      name: 'look',
      arguments: '{"x":1}',
      paths: { id: '.input[3].call_id', arguments: '.input[3].arguments' },
    });
    expect(turn.items[5]!.parts[0]).toMatchObject({
      toolCallId: 'c1',
      idPath: '.input[4].call_id',
      name: 'look',
      parts: [{ kind: 'text', path: '.input[4].output', text: 'seen' }],
    });
    expect(turn.items[6]!.parts[0]).toMatchObject({ name: 'grammar', arguments: 'abc', paths: { arguments: '.input[5].input' } });
    // The call joins the assistant message before it, with its part.
    expect(turn.messages.map((message) => [message.role, message.path, message.parts.map((part) => part.kind)])).toEqual([
      ['user', '.input[0]', ['text', 'image', 'image']],
      ['assistant', '.input[2]', ['text', 'refusal', 'tool-call']],
      ['tool', '.input[4]', ['text']],
    ]);
  });

  test('a reasoning item sent back is thinking (its summary) and redacted thinking (its encrypted content); one sent by id alone stays whole', () => {
    const turn = readResponsesRequest(
      {
        model: 'gpt-5',
        input: [
          { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Look it up.' }], encrypted_content: 'fake-encrypted' },
          { type: 'reasoning', id: 'rs_2', summary: [] },
          {
            role: 'user',
            content: [
              { type: 'input_file', file_id: 'file-1' },
              { type: 'input_file', filename: 'a.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' },
            ],
          },
        ],
      },
      0,
    );
    expect(turn.items[0]).toEqual({
      path: '.input[0]',
      role: 'assistant',
      type: 'reasoning',
      parts: [
        { kind: 'thinking', path: '.input[0].summary[0].text', text: 'Look it up.' },
        { kind: 'redacted-thinking', path: '.input[0]', data: { path: '.input[0].encrypted_content', value: 'fake-encrypted' } },
      ],
    });
    expect(turn.items[1]!.parts).toEqual([{ kind: 'unknown', path: '.input[1]', type: 'reasoning', value: { type: 'reasoning', id: 'rs_2', summary: [] } }]);
    expect(turn.items[2]!.parts).toEqual([
      { kind: 'file', path: '.input[2].content[0]', type: 'input_file', source: { path: '.input[2].content[0].file_id', value: 'file-1' } },
      {
        kind: 'file',
        path: '.input[2].content[1]',
        type: 'input_file',
        source: { path: '.input[2].content[1].file_data', value: 'data:application/pdf;base64,JVBERi0=' },
        mediaType: 'application/pdf',
        bytes: 5,
      },
    ]);
    // The model is not shown reasoning as a message.
    expect(turn.messages.map((message) => message.path)).toEqual(['.input[2]']);
  });

  test('a string input is one user item at `.input`', () => {
    expect(readResponsesRequest({ model: 'gpt-5', input: 'Hi' }, 0).items).toEqual([
      { path: '.input', role: 'user', parts: [{ kind: 'text', path: '.input', text: 'Hi' }] },
    ]);
  });
});
