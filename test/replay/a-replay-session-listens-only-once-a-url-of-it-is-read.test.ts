import { createHook } from 'node:async_hooks';
import { connect } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { openTape, type TapeSession } from 'modeltape/replay';
import { writeTapeByHand } from '../support/hand-written-tape.js';
import { tempDir } from '../support/temp-dir.js';

const QUESTION = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Where is order 7?' }] };
const ANSWER = { id: 'chatcmpl-order7', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'On its way.' } }] };
const INIT = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(QUESTION) };

// Every TCP server this process creates and closes while watched (async_hooks sees unreferenced ones too).
function watchServers(): { created: () => number; closed: () => number; stop: () => void } {
  const created = new Set<number>();
  const closed = new Set<number>();
  const hook = createHook({
    init(id, type) {
      if (type === 'TCPSERVERWRAP') created.add(id);
    },
    destroy(id) {
      if (created.has(id)) closed.add(id);
    },
  }).enable();
  return { created: () => created.size, closed: () => closed.size, stop: () => hook.disable() };
}

// Whether something accepts a connection on this loopback port.
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('a replay session listens only once a URL of it is read', () => {
  const dir = tempDir();
  let session: TapeSession | undefined;
  afterEach(async () => {
    await session?.close().catch(() => undefined);
    session = undefined;
  });

  test('sessions answered through session.fetch alone open no server of their own: the process binds at most one, kept for the next session', async () => {
    const { tape } = writeTapeByHand(dir, 'order', [{ request: QUESTION, response: { json: ANSWER } }]);
    const servers = watchServers();
    let answered = 0;
    try {
      for (let round = 0; round < 5; round++) {
        session = await openTape(tape, { config: false });
        const response = await session.fetch('https://api.openai.com/v1/chat/completions', INIT);
        expect(response.status).toBe(200);
        expect(await response.json()).toEqual(ANSWER);
        const summary = await session.close();
        session = undefined;
        expect(summary.hits).toBe(1);
        answered++;
      }
    } finally {
      servers.stop();
    }
    expect(answered).toBe(5);
    // None when an earlier session of this process left one waiting; never one per session.
    expect(servers.created()).toBeLessThanOrEqual(1);
  });

  test('a session whose base URL is read answers there until close(), and then nothing listens on its port', async () => {
    const { tape } = writeTapeByHand(dir, 'order', [{ request: QUESTION, response: { json: ANSWER } }]);
    session = await openTape(tape, { config: false, repeat: 'last' });
    const { openai, url } = session.baseUrls;
    expect(session.proxy.url).toBe(url);
    expect(session.proxy.urlOf('openai')).toBe(`${url}/openai`);
    const port = Number(new URL(url).port);
    expect(session.proxy.port).toBe(port);
    const response = await fetch(`${openai}/chat/completions`, INIT);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(ANSWER);
    // session.fetch takes the proxy's own URL too, counted with the rest.
    const again = await session.fetch(`${openai}/chat/completions`, INIT);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(ANSWER);
    const summary = await session.close();
    session = undefined;
    expect(summary.hits).toBe(2);
    expect(await accepts(port)).toBe(false);
  });

  test('a URL first read after close() names port 0, where nothing listens, and opens no server', async () => {
    const { tape } = writeTapeByHand(dir, 'order', [{ request: QUESTION, response: { json: ANSWER } }]);
    session = await openTape(tape, { config: false });
    const response = await session.fetch('https://api.openai.com/v1/chat/completions', INIT);
    await response.arrayBuffer();
    const closed = session;
    await closed.close();
    session = undefined;
    const servers = watchServers();
    try {
      expect(closed.baseUrls.url).toBe('http://127.0.0.1:0');
      expect(closed.proxy.port).toBe(0);
    } finally {
      servers.stop();
    }
    expect(servers.created()).toBe(0);
  });
});
