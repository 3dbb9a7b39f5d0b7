// The changes made to an answer's text, and how a changed text is spread back over the pieces it
// was streamed in.

/** What one text change did, for the report. */
export interface TextEdit {
  text: string;
  /** The words that changed, before and after (`is` → `is not`). */
  before: string;
  after: string;
}

const CONTRACTIONS: Record<string, string> = { "can't": 'can', "won't": 'will', "shan't": 'shall' };
const AUXILIARY = /\b(is|are|was|were|can|could|will|would|should|does|do|did|has|have|had|must|may)\b/i;

/**
 * The text saying the opposite: the first negation removed (`isn't` → `is`, `is not` → `is`,
 * `cannot` → `can`), else ` not` after the first auxiliary verb (`is` → `is not`), else `not `
 * before the whole text. Undefined for a text of only whitespace.
 */
export function negateText(text: string): TextEdit | undefined {
  if (text.trim() === '') return undefined;
  const negation = /\b(\w+)(n['’]t)\b|\b(cannot)\b|\b(not|never)\s+/i.exec(text);
  if (negation !== null) {
    const found = negation[0];
    let replaced: string;
    if (negation[3] !== undefined) replaced = found.slice(0, 3);
    else if (negation[4] !== undefined) replaced = '';
    else replaced = CONTRACTIONS[found.toLowerCase().replace('’', "'")] ?? negation[1]!;
    return edit(text, negation.index, found, replaced);
  }
  const auxiliary = AUXILIARY.exec(text);
  if (auxiliary !== null) return edit(text, auxiliary.index, auxiliary[0], `${auxiliary[0]} not`);
  const start = text.length - text.trimStart().length;
  const word = /^\S+/.exec(text.slice(start))![0];
  return { text: `${text.slice(0, start)}not ${text.slice(start)}`, before: word, after: `not ${word}` };
}

/** The text with its first number one more (`3` → `4`, `2.5` → `3.5`); undefined when it has no digit. */
export function changeFirstNumber(text: string): TextEdit | undefined {
  const digits = /\d+/.exec(text);
  if (digits === null) return undefined;
  const next = (BigInt(digits[0]) + 1n).toString();
  return edit(text, digits.index, digits[0], next);
}

/**
 * `pieces` (a text as it was streamed) rewritten so they concatenate to `next`: only the pieces
 * over the part that differs change; the change goes into the first of them, the rest of that part
 * is taken out of the others. The number of pieces stays the same.
 */
export function spreadText(pieces: readonly string[], next: string): string[] {
  const whole = pieces.join('');
  let start = 0;
  while (start < whole.length && start < next.length && whole[start] === next[start]) start++;
  // Never split a surrogate pair between two pieces.
  if (start > 0 && isHighSurrogate(whole.charCodeAt(start - 1))) start--;
  let tail = 0;
  while (tail < whole.length - start && tail < next.length - start && whole[whole.length - 1 - tail] === next[next.length - 1 - tail]) tail++;
  if (tail > 0 && isLowSurrogate(whole.charCodeAt(whole.length - tail))) tail--;
  const end = whole.length - tail;
  const replacement = next.slice(start, next.length - tail);
  // The piece that takes the replacement: the first one reaching past `start` (the last piece when the change is at the very end).
  let owner = pieces.length - 1;
  let offset = 0;
  for (let index = 0; index < pieces.length; index++) {
    const length = pieces[index]!.length;
    if (offset + length > start || (offset + length === start && start === whole.length && index === pieces.length - 1)) {
      owner = index;
      break;
    }
    offset += length;
  }
  const result: string[] = [];
  offset = 0;
  pieces.forEach((piece, index) => {
    const from = offset;
    const to = offset + piece.length;
    offset = to;
    const keepBefore = piece.slice(0, Math.max(0, Math.min(piece.length, start - from)));
    const keepAfter = piece.slice(Math.max(0, Math.min(piece.length, end - from)));
    result.push(keepBefore + (index === owner ? replacement : '') + (to <= start ? '' : keepAfter));
  });
  return result;
}

function edit(text: string, at: number, found: string, replaced: string): TextEdit {
  return { text: text.slice(0, at) + replaced + text.slice(at + found.length), before: found, after: replaced };
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** What a mutated refusal says, where an API carries the refusal's words (OpenAI). */
export const REFUSAL_TEXT = "I'm sorry, but I can't help with that.";
