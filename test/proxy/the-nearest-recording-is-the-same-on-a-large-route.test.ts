import { describe, expect, test } from 'vitest';
import { compileKeyRules, type RecordedRequest } from 'modeltape/recordings';
import { ReplayEngine } from '../../lookup/internal.js';
import { capturedChatRequest, exchangeOf } from '../support/exchanges.js';

const rules = compileKeyRules();
const request = (content: string): RecordedRequest => capturedChatRequest({ model: 'gpt-4o', messages: [{ role: 'user', content }] }, rules);

function engineOf(count: number): ReplayEngine {
  const loaded = Array.from({ length: count }, (_, index) => {
    const recorded = request(`Where is parcel #${index} today? Ship it to Paris.`);
    return { exchange: exchangeOf(recorded, { index }, rules), line: index + 2 };
  });
  return new ReplayEngine({ file: 'tapes/parcels.jsonl', keyRules: rules }, loaded);
}

describe('nearest() on a route with many recordings that all differ in one leaf', () => {
  test('chooses the closest text whether the route is scanned (63) or indexed (80)', () => {
    // A batch of prompts from one template: every recording differs from the sent one in one leaf,
    // so the text distance decides. Parcel #40 is the one that drifted (Paris → Lyon).
    const sent = request('Where is parcel #40 today? Ship it to Lyon.');
    const scanned = engineOf(63).nearest('openai', sent)!;
    expect(scanned.total).toBe(1);
    expect(scanned.entry.line).toBe(42);
    const indexed = engineOf(80).nearest('openai', sent)!;
    expect(indexed.total).toBe(1);
    // Today: line 2..17 (one of the first 16 by id): the shortlist is cut before the text distance decides.
    expect(indexed.entry.line).toBe(42);
  });
});
