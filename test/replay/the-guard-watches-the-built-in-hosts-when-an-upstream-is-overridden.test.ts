import { request as httpRequest } from 'node:http';
import { describe, expect, test } from 'vitest';
import { openTape } from 'modeltape/replay';
import { startStandInUpstream, type StandInUpstream } from '../support/stand-in-upstream.js';
import { recordTape } from '../support/record-tape.js';
import { tempDir } from '../support/temp-dir.js';

// No real network: "api.openai.com" is a local server reached with that Host header, which is
// what the guard reads for node:http requests.
function askApiOpenAi(server: StandInUpstream): Promise<string> {
  return new Promise((resolve) => {
    const outgoing = httpRequest(`${server.url}/v1/models`, { headers: { host: 'api.openai.com' } }, (response) => {
      response.resume();
      resolve(`answered ${response.statusCode}`);
    });
    outgoing.on('error', (error) => resolve(error.message));
    outgoing.end();
  });
}

describe('the guard when openai points at a local server', () => {
  const dir = tempDir();

  test('a client left on api.openai.com is still stopped, as session.fetch still treats that host as openai', async () => {
    const tape = `${dir}/local.jsonl`;
    await recordTape(
      tape,
      async ({ openai }) => {
        await (await fetch(`${openai}/models`)).arrayBuffer();
      },
      { reply: () => ({ body: '{"object":"list","data":[]}' }) },
    );
    const realOpenAi = await startStandInUpstream(() => ({ body: '{}' }));
    const local = await startStandInUpstream();

    // Control: with the built-in openai upstream, the guard stops it.
    const plain = await openTape(tape, { config: false });
    expect(await askApiOpenAi(realOpenAi)).toContain('modeltape blocked a connection to api.openai.com');
    await plain.close().catch(() => undefined);

    // openai overridden with a local server (a stand-in used to record, a LiteLLM or vLLM proxy).
    const session = await openTape(tape, { config: false, upstreams: { openai: local.url } });
    // session.fetch still maps api.openai.com to the session (BUILT_IN_HOSTS)...
    expect((await session.fetch('https://api.openai.com/v1/models')).status).toBe(200);
    // ...but the guard no longer watches api.openai.com: the request goes out.
    const outcome = await askApiOpenAi(realOpenAi);
    const closed = await session.close().then(
      () => 'closed',
      (error: Error) => error.message,
    );
    await local.close();
    await realOpenAi.close();
    expect(outcome).toContain('modeltape blocked a connection to api.openai.com');
    expect(closed).toMatch(/tried to leave the machine/);
    expect(realOpenAi.received).toHaveLength(0);
  });
});
