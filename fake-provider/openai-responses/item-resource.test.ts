import { describe, expect, test } from 'vitest';
import { asItemResource, inputResources } from './item-resource.js';

function counter(): (kind: string) => string {
  let next = 0;
  return (kind) => `fake-${kind}-${next++}`;
}

describe('asItemResource', () => {
  test('gives an item sent without one an id, its type and status, and string content as parts', () => {
    const newId = counter();
    expect(asItemResource({ role: 'user', content: 'Hi' }, newId)).toEqual({
      type: 'message',
      id: 'fake-item-0',
      role: 'user',
      content: [{ type: 'input_text', text: 'Hi' }],
      status: 'completed',
    });
    expect(asItemResource({ type: 'message', role: 'assistant', content: 'Hello' }, newId).content).toEqual([
      { type: 'output_text', text: 'Hello', annotations: [], logprobs: [] },
    ]);
    expect(asItemResource({ type: 'function_call_output', call_id: 'call_1', output: 'rain' }, newId)).toEqual({
      type: 'function_call_output',
      id: 'fake-item-2',
      call_id: 'call_1',
      output: 'rain',
      status: 'completed',
    });
  });

  test('keeps what the item carries: its id, its status, its parts; a reasoning item gets no status', () => {
    const newId = counter();
    const call = { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'f', arguments: '{}', status: 'in_progress' };
    expect(asItemResource(call, newId)).toEqual(call);
    expect(asItemResource({ type: 'reasoning', id: 'rs_1', summary: [] }, newId)).toEqual({ type: 'reasoning', id: 'rs_1', summary: [] });
    expect(inputResources('Hi', newId)).toHaveLength(1);
    expect(inputResources([{ role: 'user', content: 'a' }, 'not an item', { role: 'user', content: 'b' }], newId).map((item) => item.id)).toEqual([
      'fake-item-1',
      'fake-item-2',
    ]);
  });
});
