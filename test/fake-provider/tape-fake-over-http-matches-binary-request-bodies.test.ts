import { expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';
import { recordTape } from '../support/record-tape.js';
import { tempDir } from '../support/temp-dir.js';

const dir = tempDir();

test('a tape fake served over HTTP answers a request whose body is not UTF-8, as its fetch does', async () => {
  const tape = `${dir}/audio.jsonl`;
  const audio = Buffer.from([0x52, 0x49, 0x46, 0x46, 0xff, 0xfe, 0x00, 0x80, 0x81, 0xc3]);
  const send = (base: string) =>
    fetch(`${base}/audio/transcriptions`, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: audio });
  await recordTape(tape, async ({ openai }) => void (await (await send(openai)).text()), { reply: () => ({ body: '{"text":"hello"}' }) });

  const inProcess = FakeProvider.fromTape(tape);
  const viaFetch = await inProcess.fetch('https://api.openai.com/v1/audio/transcriptions', {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream' },
    body: audio,
  });
  expect(viaFetch.status).toBe(200);

  const served = FakeProvider.fromTape(tape);
  const server = await served.listen();
  try {
    const viaHttp = await send(`${server.url}/v1`);
    expect(viaHttp.status, await viaHttp.clone().text()).toBe(200);
    expect(await viaHttp.text()).toBe('{"text":"hello"}');
  } finally {
    await server.close();
  }
});
