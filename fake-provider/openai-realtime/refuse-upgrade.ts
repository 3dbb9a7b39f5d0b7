import type { Duplex } from 'node:stream';
import { STATUS_CODES } from 'node:http';
import type { WireResponse } from '../wire-response.js';

/** Answers an upgrade the fake refuses with a plain HTTP response on the raw socket, then closes it. */
export function refuseUpgrade(socket: Duplex, wire: WireResponse): void {
  const body = Buffer.from(typeof wire.body === 'string' ? wire.body : (wire.body ?? ''));
  const lines = [`HTTP/1.1 ${wire.status} ${STATUS_CODES[wire.status] ?? 'Error'}`, 'connection: close', `content-length: ${body.length}`];
  for (const [name, value] of Object.entries(wire.headers)) lines.push(`${name}: ${value}`);
  socket.end(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), body]));
}
