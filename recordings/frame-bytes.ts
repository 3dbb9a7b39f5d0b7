import { encodeEventStreamEvent } from './event-stream.js';
import type { Frame } from './tape-format.js';

/** The bytes a recorded stream frame stands for: its `text` as UTF-8, its `base64` decoded, its `event` encoded. */
export function frameBytes(frame: Frame): Buffer {
  if ('text' in frame) return Buffer.from(frame.text, 'utf8');
  if ('base64' in frame) return Buffer.from(frame.base64, 'base64');
  return encodeEventStreamEvent(frame.event);
}
