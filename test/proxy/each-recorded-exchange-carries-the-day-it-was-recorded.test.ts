import { readFileSync } from 'node:fs';
import { startProxy } from 'modeltape/proxy';
import { loadTape } from 'modeltape/recordings';
import { describe, expect, test } from 'vitest';
import { recordTape } from '../support/record-tape.js';
import { tempDir } from '../support/temp-dir.js';

// Each exchange carries the UTC day it was recorded on, from the proxy's injected wall clock (or
// SOURCE_DATE_EPOCH): outside its key, so a re-recording on another day replays the same.

const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }] });
const ask = (url: string) =>
  fetch(`${url}/openai/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then((response) => response.text());

describe('recordedAt', () => {
  const dir = tempDir();

  test("is the UTC day of the proxy's now, and two days' recordings of one request share its key", async () => {
    const first = `${dir}/first.jsonl`;
    const second = `${dir}/second.jsonl`;
    // 23:30 in New York on Dec 2 is Dec 3 in UTC.
    await recordTape(first, ({ url }) => ask(url), { proxy: { now: () => new Date('2026-12-03T04:30:00Z') } });
    await recordTape(second, ({ url }) => ask(url), { proxy: { now: () => new Date('2027-03-01T00:00:00Z') } });
    const [a, b] = [loadTape(first).exchanges[0]!.exchange, loadTape(second).exchanges[0]!.exchange];
    expect([a.recordedAt, b.recordedAt]).toEqual(['2026-12-03', '2027-03-01']);
    expect(b.key).toBe(a.key);
    expect(b.response.body).toEqual(a.response.body);
    expect(JSON.parse(readFileSync(first, 'utf8').split('\n')[0]!).schemaVersion).toBe(4);
  });

  test('SOURCE_DATE_EPOCH pins it, and a value that is no number of seconds is refused before anything starts', async () => {
    const pinned = `${dir}/pinned.jsonl`;
    await recordTape(pinned, ({ url }) => ask(url), { proxy: { env: { SOURCE_DATE_EPOCH: '1764460800' } } });
    expect(loadTape(pinned).exchanges[0]!.exchange.recordedAt).toBe('2025-11-30');
    await expect(
      startProxy({ tape: `${dir}/never.jsonl`, mode: 'record', allowRecordInCi: true, env: { SOURCE_DATE_EPOCH: 'yesterday' } }),
    ).rejects.toMatchObject({
      code: 'invalid_source_date',
      message: expect.stringContaining('it must be whole seconds since 1970'),
    });
    // Past year 9999 a day is no YYYY-MM-DD; and a replay never reads it.
    await expect(
      startProxy({ tape: `${dir}/never.jsonl`, mode: 'record', allowRecordInCi: true, env: { SOURCE_DATE_EPOCH: '999999999999' } }),
    ).rejects.toMatchObject({
      code: 'invalid_source_date',
    });
    const replay = await startProxy({ tape: pinned, mode: 'replay', env: { SOURCE_DATE_EPOCH: 'yesterday' } });
    expect(await ask(replay.url)).toContain('chat.completion');
    await replay.close();
  });
});
