// The bare upstream: a node:http server that reads the request body fully, then answers with
// the payload's fixed bytes (PAYLOAD=json: one ~1 KB JSON body; PAYLOAD=sse: one res.write per frame).
import { createServer } from 'node:http';
import { JSON_RESPONSE, SSE_FRAMES } from '../payloads.mjs';
import { serveUntilStopped } from './child-ipc.mjs';

const payload = process.env.PAYLOAD;
if (payload !== 'json' && payload !== 'sse') throw new Error(`PAYLOAD must be json or sse, not ${payload}`);

const JSON_HEADERS = { 'content-type': 'application/json', 'content-length': String(JSON_RESPONSE.length), 'x-request-id': 'req_bench' };
const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-request-id': 'req_bench' };

const respond =
  payload === 'json'
    ? (res) => {
        res.writeHead(200, JSON_HEADERS);
        res.end(JSON_RESPONSE);
      }
    : (res) => {
        res.writeHead(200, SSE_HEADERS);
        for (const frame of SSE_FRAMES) res.write(frame);
        res.end();
      };

const server = createServer({ noDelay: true }, (req, res) => {
  req.on('data', () => {});
  req.on('end', () => respond(res));
});
server.keepAliveTimeout = 5_000;
server.listen(0, '127.0.0.1', () => {
  serveUntilStopped(server.address().port, async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
});
