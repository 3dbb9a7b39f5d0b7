import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { readGenerateRequest } from './read-request.js';

// The model's turn sent back is a real captured answer's content: a function call with its thought signature.
const answer = JSON.parse(readFileSync(new URL('../../test/fixtures/samples/gemini/generate-content-tool-call.json', import.meta.url), 'utf8')) as {
  candidates: Array<{ content: Record<string, unknown> }>;
};

describe('readGenerateRequest keeps every content as sent, as typed parts with their JSON paths', () => {
  test('thoughts are thinking, not text; inlineData and fileData are an image and a file; calls and responses pair up', () => {
    const turn = readGenerateRequest(
      {
        systemInstruction: { parts: [{ text: 'Be brief.' }] },
        contents: [
          {
            role: 'user',
            parts: [
              { text: 'Weather here?' },
              { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
              { fileData: { mimeType: 'application/pdf', fileUri: 'gs://bucket/a.pdf' } },
            ],
          },
          { role: 'model', parts: [{ text: 'The photo shows a street.', thought: true }, ...(answer.candidates[0]!.content.parts as unknown[])] },
          { role: 'user', parts: [{ functionResponse: { name: 'weather', response: { result: 'rain' } } }] },
          { parts: [{ executableCode: { language: 'PYTHON', code: 'print(1)' } }] },
        ],
      },
      0,
      { api: 'gemini-generate', provider: 'gemini', model: 'gemini-3-pro-preview', stream: false },
    );
    expect(turn.items.map((item) => [item.path, item.role, item.parts.map((part) => `${part.kind} ${part.path}`)])).toEqual([
      ['.systemInstruction', 'system', ['text .systemInstruction.parts[0].text']],
      ['.contents[0]', 'user', ['text .contents[0].parts[0].text', 'image .contents[0].parts[1]', 'file .contents[0].parts[2]']],
      ['.contents[1]', 'model', ['thinking .contents[1].parts[0].text', 'tool-call .contents[1].parts[1]']],
      ['.contents[2]', 'user', ['tool-result .contents[2].parts[0]']],
      ['.contents[3]', 'user', ['unknown .contents[3].parts[0]']],
    ]);
    expect(turn.items[1]!.parts.slice(1)).toEqual([
      {
        kind: 'image',
        path: '.contents[0].parts[1]',
        type: 'inlineData',
        source: { path: '.contents[0].parts[1].inlineData', value: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
        mediaType: 'image/png',
        bytes: 8,
      },
      {
        kind: 'file',
        path: '.contents[0].parts[2]',
        type: 'fileData',
        source: { path: '.contents[0].parts[2].fileData', value: { mimeType: 'application/pdf', fileUri: 'gs://bucket/a.pdf' } },
        url: 'gs://bucket/a.pdf',
        mediaType: 'application/pdf',
      },
    ]);
    expect(turn.items[2]!.parts[1]).toEqual({
      kind: 'tool-call',
      path: '.contents[1].parts[1]',
      id: undefined,
      name: 'weather',
      arguments: { location: 'San Francisco' },
      paths: { id: undefined, name: '.contents[1].parts[1].functionCall.name', arguments: '.contents[1].parts[1].functionCall.args' },
    });
    expect(turn.items[3]!.parts[0]).toMatchObject({ toolCallId: 'weather', idPath: undefined, name: 'weather', parts: [{ kind: 'text', text: 'rain' }] });
    expect(turn.items[4]!.parts[0]).toMatchObject({ kind: 'unknown', type: 'executableCode' });
    // The thought is not what the model said: the model message's text leaves it out, its parts keep it.
    expect(turn.messages[1]).toMatchObject({ role: 'assistant', text: '', path: '.contents[1]' });
    expect(turn.messages[1]!.parts.map((part) => part.kind)).toEqual(['thinking', 'tool-call']);
    expect(turn.messages[2]).toMatchObject({ role: 'tool', text: 'rain', path: '.contents[2].parts[0]' });
  });
});
