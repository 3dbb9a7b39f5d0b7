import { describe, expect, test } from 'vitest';
import { openTape } from 'modeltape/replay';
import { startStandInUpstream } from '../support/stand-in-upstream.js';
import { tempDir } from '../support/temp-dir.js';

const form = (): FormData => {
  const data = new FormData();
  data.append('model', 'whisper-1');
  data.append('file', new Blob([new Uint8Array([1, 2, 3])], { type: 'audio/wav' }), 'hello.wav');
  return data;
};

describe('multipart bodies through session.fetch', () => {
  const dir = tempDir();

  test('an audio upload recorded through session.fetch replays (the multipart boundary is random per request)', async () => {
    const tape = `${dir}/transcription.jsonl`;
    const provider = await startStandInUpstream(() => ({ body: '{"text":"hello"}' }));
    const recorder = await openTape(tape, { mode: 'record', allowRecordInCi: true, config: false, upstreams: { openai: provider.url } });
    expect((await recorder.fetch('https://api.openai.com/v1/audio/transcriptions', { method: 'POST', body: form() })).status).toBe(200);
    await recorder.close();
    await provider.close();

    const session = await openTape(tape, { config: false });
    const replayed = await session.fetch('https://api.openai.com/v1/audio/transcriptions', { method: 'POST', body: form() });
    await session.close();
    // Today: 400 modeltape_replay_miss, "at header content-type" / body differ only by the boundary.
    expect(replayed.status).toBe(200);
  });
});
