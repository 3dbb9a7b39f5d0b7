// The baseline hop: a minimal undici streaming proxy. Collects the request body, forwards it with
// Pool#stream to UPSTREAM (the bare server), and pipes the response to the client with its status
// and headers. No keying, no recording: the least a forwarding proxy in Node has to do.
import { createServer } from 'node:http';
import { Pool } from 'undici';
import { serveUntilStopped } from './child-ipc.mjs';

const upstream = process.env.UPSTREAM; // e.g. http://127.0.0.1:40000
const prefix = process.env.PREFIX ?? '/openai'; // stripped, like the proxy's /<upstream>/ segment
const pool = new Pool(upstream);

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host']);

function requestHeaders(headers) {
  const out = {};
  for (const name in headers) if (!HOP_BY_HOP.has(name) && name !== 'content-length') out[name] = headers[name];
  return out;
}

function responseHeaders(headers) {
  const out = {};
  for (const name in headers) if (!HOP_BY_HOP.has(name)) out[name] = headers[name];
  return out;
}

const server = createServer({ noDelay: true }, (req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
    const path = req.url.startsWith(`${prefix}/`) ? req.url.slice(prefix.length) : req.url;
    pool
      .stream({ method: req.method, path, headers: requestHeaders(req.headers), body: body.length > 0 ? body : null }, ({ statusCode, headers }) => {
        res.writeHead(statusCode, responseHeaders(headers));
        return res;
      })
      .catch((error) => {
        if (!res.headersSent) {
          res.writeHead(502, { 'content-type': 'text/plain' });
          res.end(String(error));
        } else res.destroy(error);
      });
  });
});
server.keepAliveTimeout = 5_000;
server.listen(0, '127.0.0.1', () => {
  serveUntilStopped(server.address().port, async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await pool.close();
  });
});
