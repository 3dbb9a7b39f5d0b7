// talkback in front of the bare upstream, in its own process. MODE=record (RecordMode.NEW: proxy
// unknown requests to UPSTREAM and write a tape into TAPES) or MODE=playback (RecordMode.DISABLED:
// answer from the tapes in TAPES only, 404 for anything else).
import talkback from 'talkback';
import { serveUntilStopped } from '../servers/child-ipc.mjs';

const mode = process.env.MODE;
if (mode !== 'record' && mode !== 'playback') throw new Error(`MODE must be record or playback, not ${mode}`);

const server = talkback({
  host: process.env.UPSTREAM ?? 'http://127.0.0.1:9',
  path: process.env.TAPES,
  port: 0,
  record: mode === 'record' ? talkback.Options.RecordMode.NEW : talkback.Options.RecordMode.DISABLED,
  fallbackMode: talkback.Options.FallbackMode.NOT_FOUND,
  silent: true,
  summary: false,
});
const http = await server.start();
serveUntilStopped(http.address().port, () => new Promise((resolve) => server.close(resolve)));
