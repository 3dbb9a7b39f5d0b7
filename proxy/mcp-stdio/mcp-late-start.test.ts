import { afterEach, describe, expect, test, vi } from 'vitest';
import { LateStart } from './mcp-late-start.js';

const line = (message: Record<string, unknown>): string => JSON.stringify({ jsonrpc: '2.0', ...message });
const INITIALIZE = line({
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: { roots: {} }, clientInfo: { name: 'a', version: '1' } },
});
const INITIALIZED = line({ method: 'notifications/initialized' });
const ROOTS = { roots: [{ uri: 'file:///docs' }] };

// The replayed part of a session: the handshake, the recorded server's roots/list (id 0), the client's answer.
function replayed(): LateStart {
  const late = new LateStart();
  late.replayedClientLine(INITIALIZE, JSON.parse(INITIALIZE));
  late.replayedClientLine(INITIALIZED, JSON.parse(INITIALIZED));
  late.replayedServerLine(`${line({ id: 0, method: 'roots/list' })}\n`);
  expect(late.clientAnswer({ jsonrpc: '2.0', id: 0, result: ROOTS })).toBe('kept');
  return late;
}

describe('a server auto mode starts behind a replayed session', () => {
  afterEach(() => vi.useRealTimers());

  test('gets initialize, then initialized once it answered, then the client answer under its own id, and what missed after a ping', () => {
    const late = replayed();
    const written: string[] = [];
    late.start((text) => written.push(text));
    late.send(line({ id: 3, method: 'tools/call', params: { name: 'read_file' } }));
    expect(written).toEqual([INITIALIZE]);
    expect(late.serverMessage({ jsonrpc: '2.0', id: 0, result: {} })).toBe(true);
    expect(written.slice(1)).toEqual([INITIALIZED]);
    // This server numbers its own requests from 7: the answer the client gave request 0 is renumbered.
    expect(late.serverMessage({ jsonrpc: '2.0', id: 7, method: 'roots/list' })).toBe(true);
    expect(written.slice(2).map((text) => JSON.parse(text))).toEqual([
      { jsonrpc: '2.0', id: 7, result: ROOTS },
      { jsonrpc: '2.0', id: 'modeltape-late-start', method: 'ping' },
    ]);
    expect(late.serverMessage({ jsonrpc: '2.0', id: 'modeltape-late-start', result: {} })).toBe(true);
    expect(JSON.parse(written[4]!)).toMatchObject({ id: 3, method: 'tools/call' });
    expect(written).toHaveLength(5);
    expect(late.incomplete).toBeUndefined();
    // From here the server's requests are the client's to answer, and the answers go back to it.
    expect(late.serverMessage({ jsonrpc: '2.0', id: 8, method: 'sampling/createMessage' })).toBe(false);
    expect(late.clientAnswer({ jsonrpc: '2.0', id: 8, result: {} })).toBe('to-server');
  });

  test('a server that never asks what the recorded one asked is let go after 3 seconds, and its warm-up said to be incomplete', () => {
    vi.useFakeTimers();
    const late = replayed();
    const written: string[] = [];
    late.start((text) => written.push(text));
    late.send(line({ id: 3, method: 'tools/call' }));
    late.serverMessage({ jsonrpc: '2.0', id: 0, result: {} });
    vi.advanceTimersByTime(2999);
    expect(written).toEqual([INITIALIZE, INITIALIZED]);
    vi.advanceTimersByTime(1);
    expect(JSON.parse(written[2]!)).toMatchObject({ id: 3 });
    expect(late.incomplete).toBe('it never asked roots/list, which the recorded server asked and the client answered in the replayed part');
    late.dispose();
  });

  test('a server started before anything was replayed gets every line at once, as in record mode', () => {
    const late = new LateStart();
    const written: string[] = [];
    late.start((text) => written.push(text));
    late.send(INITIALIZE);
    expect(written).toEqual([INITIALIZE]);
    expect(late.serverMessage({ jsonrpc: '2.0', id: 0, result: {} })).toBe(false);
  });
});
