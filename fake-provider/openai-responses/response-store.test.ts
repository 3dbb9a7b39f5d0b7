import { describe, expect, test } from 'vitest';
import { ResponseStore, type ResponseItem, type StoredResponse } from './response-store.js';

const message = (id: string, text: string): ResponseItem => ({ type: 'message', id, role: 'assistant', content: [{ type: 'output_text', text }] });

function stored(id: string, output: ResponseItem[]): StoredResponse {
  return { id, conversation: [], input: [], output, response: { id }, background: false };
}

describe('ResponseStore', () => {
  test('an item a newer response holds outlives the older response that made it', () => {
    const store = new ResponseStore(2);
    const item = message('msg-1', 'Paris.');
    store.keep(stored('resp-1', [item]), []);
    // resp-2 was sent resp-1's output item back by value, with its id.
    store.keep(stored('resp-2', [message('msg-2', 'Lyon.')]), [{ type: 'message', role: 'user', content: 'Hi' }, item]);
    store.keep(stored('resp-3', [message('msg-3', 'Nice.')]), []);
    expect(store.response('resp-1')).toEqual({ dropped: true, limit: 2 });
    expect(store.item('msg-1')).toEqual({ found: item });
    // Once the last response holding it goes, the item goes too, and is said to be dropped.
    store.keep(stored('resp-4', []), []);
    expect(store.item('msg-1')).toEqual({ dropped: true, limit: 2 });
    expect(store.item('msg-3')).toEqual({ found: message('msg-3', 'Nice.') });
  });

  test('deleting one of two responses that hold an item keeps it; deleting both removes it', () => {
    const store = new ResponseStore(5);
    const item = message('msg-1', 'Paris.');
    store.keep(stored('resp-1', [item]), []);
    store.keep(stored('resp-2', []), [item, item]);
    expect(store.delete('resp-1')).toBe(true);
    expect(store.item('msg-1')).toEqual({ found: item });
    expect(store.delete('resp-2')).toBe(true);
    expect(store.item('msg-1')).toEqual({ unknown: true });
  });

  test('a response dropped alone takes its items with it', () => {
    const store = new ResponseStore(1);
    store.keep(stored('resp-1', [message('msg-1', 'Paris.')]), []);
    store.keep(stored('resp-2', [message('msg-2', 'Lyon.')]), []);
    expect([store.size, store.item('msg-1'), store.item('msg-2')]).toEqual([1, { dropped: true, limit: 1 }, { found: message('msg-2', 'Lyon.') }]);
  });
});
