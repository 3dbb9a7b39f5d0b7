import type { PreparedResponse } from '../../lookup/internal.js';
import { renumberResponse, renumberSseEvent, type JsonRpcId } from '../../providers/internal.js';

/**
 * A recorded MCP answer renumbered for a client that numbered the call otherwise: the JSON-RPC
 * response to `recorded` (a JSON body, the SSE event that carries it, or its NDJSON line from a
 * stdio server) answers `sent`. Every
 * other byte is the recording's, the server's own notifications and requests on the stream too.
 */
export function renumberPrepared(prepared: PreparedResponse, recorded: JsonRpcId, sent: JsonRpcId): PreparedResponse {
  if (prepared.frames !== undefined) {
    const frames = prepared.frames.map((frame) => {
      const text = frame.bytes.toString('utf8');
      const renumbered = prepared.format === 'sse' ? renumberSseEvent(text, recorded, sent) : renumberLine(text, recorded, sent);
      return renumbered === text ? frame : { atMs: frame.atMs, bytes: Buffer.from(renumbered, 'utf8') };
    });
    return { ...prepared, frames, body: Buffer.concat(frames.map((frame) => frame.bytes)) };
  }
  const renumbered = renumberResponse(prepared.body.toString('utf8'), recorded, sent);
  if (renumbered === undefined) return prepared;
  const body = Buffer.from(renumbered, 'utf8');
  return { ...prepared, body, headers: { ...prepared.headers, 'content-length': String(body.length) } };
}

// One NDJSON line, its line break kept.
function renumberLine(text: string, recorded: JsonRpcId, sent: JsonRpcId): string {
  const end = text.length - text.trimEnd().length;
  const renumbered = renumberResponse(text.slice(0, text.length - end), recorded, sent);
  return renumbered === undefined ? text : `${renumbered}${text.slice(text.length - end)}`;
}
