// undici's own SnapshotAgent (experimental in undici 7), the in-process peer: `recordSnapshot` runs
// in the parent and records one exchange from the bare upstream (mode 'record', written on
// close()); `playbackSnapshot` runs in the measuring child (bench/servers/in-process.mjs) and
// answers from that file (mode 'playback': no request leaves, a request it has no snapshot for fails).
//
// The undici is modeltape's own dependency (7.30.2, which has SnapshotAgent): nothing in this
// folder's package pins another, so `undici` resolves to the repository's node_modules.
//
// What SnapshotAgent keys on (undici lib/mock/snapshot-recorder.js): a sha256 of the method, the
// full URL (origin and query included), every request header (lower-cased, sorted; by default all
// of them: user-agent, accept-encoding, content-length, sec-fetch-mode…) and the request body as a
// string, byte for byte. The hash is written into the file and trusted as it is on load. So a
// snapshot recorded with undici's fetch (user-agent "undici") misses for Node's global fetch
// (user-agent "node"), and the reverse: FETCH picks which one records and plays back.
import { readFileSync } from 'node:fs';
import { SnapshotAgent, fetch as undiciFetch } from 'undici';

/** The fetch a snapshot is recorded and played back with: undici's own (`undici`) or Node's global one (`global`). */
export function fetchOf(kind) {
  if (kind === 'undici') return undiciFetch;
  if (kind === 'global') return globalThis.fetch;
  throw new Error(`FETCH must be undici or global, not ${JSON.stringify(kind)}`);
}

/** Records one POST of `body` to `url` into `file` through a SnapshotAgent; returns the status and body it got. */
export async function recordSnapshot({ file, url, body, fetchKind }) {
  const agent = new SnapshotAgent({ mode: 'record', snapshotPath: file });
  try {
    const response = await fetchOf(fetchKind)(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body, dispatcher: agent });
    return { status: response.status, body: await response.text() };
  } finally {
    await agent.close();
  }
}

/** How many exchanges a snapshot file holds, and how many responses each. */
export function snapshotShape(file) {
  const entries = JSON.parse(readFileSync(file, 'utf8'));
  return entries.map((entry) => entry.snapshot.responses.length);
}

/**
 * A SnapshotAgent in playback from `file`, its snapshots loaded, and a `send()` that POSTs `body`
 * to `url` through it. `calls()` is the agent's own count of answers it played back.
 */
export async function playbackSnapshot({ file, url, body, fetchKind }) {
  const agent = new SnapshotAgent({ mode: 'playback', snapshotPath: file });
  await agent.loadSnapshots();
  const fetch = fetchOf(fetchKind);
  const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body, dispatcher: agent };
  const count = () =>
    agent
      .getRecorder()
      .getSnapshots()
      .reduce((sum, snapshot) => sum + (snapshot.callCount ?? 0), 0);
  // close() writes the file back even in playback, callCount included, and the next playback of
  // it starts from there (a snapshot of several responses then begins at a later one): count from load.
  const loaded = count();
  return {
    send: () => fetch(url, init),
    calls: () => count() - loaded,
    close: () => agent.close(),
  };
}
