import { isRecord } from '../../core/internal.js';

// o1, o3, o4-mini, gpt-5…, codex-mini…: the models that reason before they answer.
const REASONING_MODEL = /^(?:o\d|gpt-5|codex)/;

/** Whether a Responses request gets a `reasoning` item first: a reasoning model, or a `reasoning` object in the body. */
export function reasons(body: Record<string, unknown>): boolean {
  return isRecord(body.reasoning) || (typeof body.model === 'string' && REASONING_MODEL.test(body.model.replace(/^fake-/, '')));
}

/** The `summary` the request asked for (`auto`, `concise`, `detailed`), or undefined for none. */
export function summaryMode(body: Record<string, unknown>): string | undefined {
  return isRecord(body.reasoning) && typeof body.reasoning.summary === 'string' ? body.reasoning.summary : undefined;
}

/** Whether the request asked for `reasoning.encrypted_content` in its `include`. */
export function includesEncryptedContent(body: Record<string, unknown>): boolean {
  return Array.isArray(body.include) && body.include.includes('reasoning.encrypted_content');
}

/** What the fake "thought": it says it did not, deterministically. */
export function reasoningText(index: number): string {
  return `The fake did not reason: modeltape's FakeProvider answers from its script (call ${index}).`;
}

const SEAL = 'fake-encrypted-reasoning';

/**
 * The `encrypted_content` of a reasoning item: clearly fake, deterministic, and sealed with a
 * checksum so the fake can tell its own from one it did not make (as OpenAI refuses content it
 * cannot decrypt). It is not encryption: it carries the item id and what the fake thought.
 */
export function sealReasoning(id: string, text: string): string {
  const payload = Buffer.from(JSON.stringify({ id, text }), 'utf8').toString('base64url');
  return `${SEAL}.${payload}.${checksum(payload)}`;
}

/** Whether the fake made this encrypted content. */
export function isSealedByFake(content: string): boolean {
  const [seal, payload, sum, ...rest] = content.split('.');
  return seal === SEAL && payload !== undefined && rest.length === 0 && sum === checksum(payload);
}

// FNV-1a, 32 bits: enough to tell tampered or foreign content from the fake's own.
function checksum(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}
