import { describe, expect, test } from 'vitest';
import { ConversationStore, type StoredConversation } from './conversation-store.js';

const conversation = (id: string): StoredConversation => ({ id, created_at: 0, metadata: {}, items: [] });

describe('ConversationStore', () => {
  test('keeps the latest conversations, and says of an older one that it was dropped', () => {
    const store = new ConversationStore(2);
    for (const id of ['conv-a', 'conv-b', 'conv-c']) store.keep(conversation(id));
    expect(store.size).toBe(2);
    expect(store.conversation('conv-a')).toEqual({ dropped: true, limit: 2 });
    expect(store.conversation('conv-c')).toEqual({ found: conversation('conv-c') });
    expect(store.conversation('conv-never')).toEqual({ unknown: true });
  });

  test('a limit of 0 keeps nothing, and a deleted conversation is unknown, not dropped', () => {
    const none = new ConversationStore(0);
    none.keep(conversation('conv-a'));
    expect([none.size, 'dropped' in none.conversation('conv-a')]).toEqual([0, true]);
    const store = new ConversationStore(5);
    store.keep(conversation('conv-b'));
    expect([store.delete('conv-b'), store.delete('conv-b')]).toEqual([true, false]);
    expect(store.conversation('conv-b')).toEqual({ unknown: true });
  });

  test('its memory of dropped ids stays bounded however many it made', () => {
    const store = new ConversationStore(1);
    for (let n = 0; n < 10_000; n++) store.keep(conversation(`conv-${n}`));
    expect(store.size).toBe(1);
    expect(store.conversation('conv-9998')).toEqual({ dropped: true, limit: 1 });
    expect(store.conversation('conv-0')).toEqual({ unknown: true });
  });
});
