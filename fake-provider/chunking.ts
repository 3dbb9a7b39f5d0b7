import { ModeltapeError } from '../core/internal.js';
import type { Chunking } from './script.js';

/**
 * Cuts text into the pieces a stream delivers. `'words'` keeps each word with the whitespace
 * before it ("Hello", " world", "."): roughly how tokens arrive.
 */
export function cutIntoChunks(text: string, chunking: Chunking = 'words'): string[] {
  if (text.length === 0) return [];
  if (chunking === 'words') return text.match(/\s*\S+|\s+$/g) ?? [text];
  if ('size' in chunking) {
    if (!Number.isInteger(chunking.size) || chunking.size < 1)
      throw new ModeltapeError('invalid_chunking', `Invalid chunk size ${chunking.size}: expected a whole number of characters, 1 or more.`);
    const pieces: string[] = [];
    for (let start = 0; start < text.length; start += chunking.size) pieces.push(text.slice(start, start + chunking.size));
    return pieces;
  }
  if (chunking.pieces.join('') !== text) {
    throw new ModeltapeError(
      'invalid_chunking',
      `The chunk pieces ${JSON.stringify(chunking.pieces)} do not join to the text ${JSON.stringify(text)}. Pieces must cover the text exactly.`,
    );
  }
  return chunking.pieces.filter((piece) => piece.length > 0);
}

/** Tool-call arguments (JSON text) arrive in small fragments; pieces given for text apply to text only. */
export function cutArguments(json: string, chunking: Chunking = 'words'): string[] {
  if (json.length === 0) return [];
  const size = typeof chunking === 'object' && 'size' in chunking ? chunking.size : 8;
  return cutIntoChunks(json, { size });
}
