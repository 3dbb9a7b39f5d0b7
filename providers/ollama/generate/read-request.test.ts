import { describe, expect, test } from 'vitest';
import { readOllamaGenerateRequest } from './read-request.js';

describe('readOllamaGenerateRequest keeps the request as sent, as typed parts with their JSON paths', () => {
  test('the system, and the prompt with its images as one user item', () => {
    const turn = readOllamaGenerateRequest({ model: 'llava', system: 'Be brief.', prompt: 'What is this?', images: ['iVBORw0KGgo='] }, 0);
    expect(turn.items).toEqual([
      { path: '.system', role: 'system', parts: [{ kind: 'text', path: '.system', text: 'Be brief.' }] },
      {
        path: '.prompt',
        role: 'user',
        parts: [
          { kind: 'text', path: '.prompt', text: 'What is this?' },
          { kind: 'image', path: '.images[0]', type: 'images', source: { path: '.images[0]', value: 'iVBORw0KGgo=' }, mediaType: 'image/png', bytes: 8 },
        ],
      },
    ]);
    expect(turn.messages).toEqual([{ role: 'user', text: 'What is this?', path: '.prompt', parts: turn.items[1]!.parts }]);
  });
});
