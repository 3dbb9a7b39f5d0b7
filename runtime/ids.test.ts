import { describe, expect, test } from 'vitest';
import { isUlid, recordId, sequentialIds, steppingClock } from './ids.js';

describe('record ids', () => {
  test('are ULIDs carrying the clock reading, the same for the same record and writer, different for another writer', () => {
    const at = Date.UTC(2026, 10, 30, 12);
    const id = recordId(at, 'run-1', '0.1.tool', 'start', 'runtime-a#1');
    expect(isUlid(id)).toBe(true);
    expect(id).toBe(recordId(at, 'run-1', '0.1.tool', 'start', 'runtime-a#1'));
    expect(id.slice(0, 10)).toBe(recordId(at, 'x', 'y', 'complete', 'z').slice(0, 10));
    const others = new Set([
      id,
      recordId(at, 'run-1', '0.1.tool', 'start', 'runtime-a#2'),
      recordId(at, 'run-1', '0.1.tool', 'complete', 'runtime-a#1'),
      recordId(at, 'run-1', '0.2.tool', 'start', 'runtime-a#1'),
      recordId(at, 'run-2', '0.1.tool', 'start', 'runtime-a#1'),
    ]);
    expect(others.size).toBe(5);
  });

  test('the test clock and ids repeat from run to run', () => {
    const a = steppingClock(1000, 5);
    expect([a(), a(), a()]).toEqual([1000, 1005, 1010]);
    const ids = sequentialIds('run');
    expect([ids(), ids()]).toEqual(['run-1', 'run-2']);
  });
});
