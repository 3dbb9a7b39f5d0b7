import type { Readable, Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';

// A line longer than this is passed on in pieces, so a process that never ends a line is heard.
const MAX_HELD = 64 * 1024;

/**
 * Passes what `from` says on to `to` as it comes, whole lines at a time: each write ends at a line
 * break, so the stream written to (the CLI's, which masks and escapes every write) sees a key whole
 * even when it came split across chunks. What is left without a line break is passed on when its
 * line ends, when it grows past 64 KiB, or when `from` ends.
 */
export function relayLines(from: Readable, to: Writable): void {
  const decoder = new StringDecoder('utf8');
  let held = '';
  from.on('data', (chunk: Buffer) => {
    held += decoder.write(chunk);
    const end = held.lastIndexOf('\n') + 1;
    if (end > 0) {
      to.write(held.slice(0, end));
      held = held.slice(end);
    }
    if (held.length > MAX_HELD) {
      to.write(held);
      held = '';
    }
  });
  from.on('end', () => {
    held += decoder.end();
    if (held !== '') to.write(held);
    held = '';
  });
}
