import { cutIntoChunks } from './chunking.js';
import type { Chunking } from './script.js';

// A scripted answer's text is the same string on every call a sticky rule answers, and
// JSON.stringify of a long string costs about as much as the rest of a response (Node 20:
// a few ns a character). Its JSON text, and the JSON texts of its stream pieces, are kept here,
// bounded, and cleared whole when full: what a call renders never depends on what is kept.

/** Strings longer than this are encoded each time, not kept. */
const LONGEST_KEPT = 64 * 1024;
/** How many texts each memo keeps before it starts over. */
const KEPT_TEXTS = 256;

const encodedTexts = new Map<string, string>();
// Stream pieces by how they are cut ('words', `size:8`), then by text.
const encodedPieces = new Map<string, Map<string, readonly string[]>>();
let piecesKept = 0;

/** `JSON.stringify(text)`, for a text a script answers with (kept between calls). */
export function scriptedJson(text: string): string {
  let json = encodedTexts.get(text);
  if (json === undefined) {
    json = JSON.stringify(text);
    if (text.length <= LONGEST_KEPT) {
      if (encodedTexts.size >= KEPT_TEXTS) encodedTexts.clear();
      encodedTexts.set(text, json);
    }
  }
  return json;
}

/**
 * `cutIntoChunks(text, chunking).map((piece) => JSON.stringify(piece))`: the JSON text of each
 * piece a stream delivers. Pieces given explicitly (`{ pieces }`) are checked and encoded on
 * every call (the array is the caller's, and could change); cuts by words or size are kept.
 */
export function scriptedPiecesJson(text: string, chunking: Chunking | undefined): readonly string[] {
  const cut = chunking === undefined || chunking === 'words' ? 'words' : 'size' in chunking ? `size:${chunking.size}` : undefined;
  if (cut === undefined || text.length > LONGEST_KEPT) return cutIntoChunks(text, chunking).map((piece) => JSON.stringify(piece));
  let byText = encodedPieces.get(cut);
  let pieces = byText?.get(text);
  if (pieces === undefined) {
    // An invalid size throws here, on every call: nothing is kept for it.
    pieces = cutIntoChunks(text, chunking).map((piece) => JSON.stringify(piece));
    if (piecesKept >= KEPT_TEXTS) {
      encodedPieces.clear();
      piecesKept = 0;
      byText = undefined;
    }
    if (byText === undefined) encodedPieces.set(cut, (byText = new Map()));
    byText.set(text, pieces);
    piecesKept++;
  }
  return pieces;
}
