import { createHash } from 'node:crypto';
import { isRecord } from '../../core/internal.js';
import { thinks, type AskedTurn, type ProviderError } from '../../providers/internal.js';
import { fakeThought, type Answer } from '../answer.js';

type Block = Record<string, unknown>;

/**
 * The string Anthropic documents for testing redacted thinking: a request that holds it is
 * answered with a `redacted_thinking` block instead of a `thinking` one.
 * (docs.claude.com, extended thinking, "Thinking redaction")
 */
export const REDACTED_THINKING_TRIGGER = 'ANTHROPIC_MAGIC_STRING_TRIGGER_REDACTED_THINKING_46C9A13E193C177646C7398A98432ECCCE4C1253D5E2D82641AC0E52CC2876CB';

const SIGNATURE_PREFIX = 'fake-signature-';
const REDACTED_PREFIX = 'fake-redacted-thinking-';

/**
 * The signature the fake gives a thinking text: a hash of it, prefixed so it can never pass for
 * a real one. The same text always signs the same, and the fake accepts back only what it signed.
 */
export function fakeSignature(thinking: string): string {
  return `${SIGNATURE_PREFIX}${digest(`thinking\u0000${thinking}`)}`;
}

/** The `data` of a redacted thinking block: the text, readable (it is fake), and its hash. */
export function fakeRedactedData(thinking: string): string {
  return `${REDACTED_PREFIX}${Buffer.from(thinking).toString('base64url')}.${digest(`redacted\u0000${thinking}`)}`;
}

/**
 * The block a thinking turn starts with: `thinking` (empty with `display: "omitted"`, signed
 * all the same), or `redacted_thinking` when the request holds {@link REDACTED_THINKING_TRIGGER}.
 * Undefined when the request does not ask for thinking.
 */
export function thinkingBlock(turn: AskedTurn, answer: Answer): Block | undefined {
  if (!thinks(turn.body)) return undefined;
  const thinking = fakeThought(turn, answer);
  if (JSON.stringify(turn.body.messages ?? []).includes(REDACTED_THINKING_TRIGGER)) return { type: 'redacted_thinking', data: fakeRedactedData(thinking) };
  const display = isRecord(turn.body.thinking) ? turn.body.thinking.display : undefined;
  const shown = display === 'omitted' ? '' : thinking;
  return { type: 'thinking', thinking: shown, signature: fakeSignature(shown) };
}

/** The text a thinking block costs in output tokens. */
export function thinkingText(block: Block | undefined): string {
  if (block === undefined) return '';
  return block.type === 'thinking' ? String(block.thinking) : String(block.data);
}

/**
 * The 400 for a thinking block the fake did not sign (a real signature, an edited text, a block
 * from another provider): Anthropic checks every signature it is sent, and so does the fake.
 */
export function refuseForeignThinking(body: Record<string, unknown>): ProviderError | undefined {
  if (!Array.isArray(body.messages)) return undefined;
  for (const [index, message] of body.messages.entries()) {
    if (!isRecord(message) || !Array.isArray(message.content)) continue;
    for (const [position, block] of message.content.entries()) {
      if (!isRecord(block)) continue;
      if (block.type === 'thinking' && (typeof block.thinking !== 'string' || block.signature !== fakeSignature(block.thinking)))
        return { status: 400, type: 'invalid_request_error', message: `messages.${index}.content.${position}: Invalid \`signature\` in \`thinking\` block` };
      if (block.type === 'redacted_thinking' && !isFakeRedactedData(block.data))
        return {
          status: 400,
          type: 'invalid_request_error',
          message: `messages.${index}.content.${position}: Invalid \`data\` in \`redacted_thinking\` block`,
        };
    }
  }
  return undefined;
}

function isFakeRedactedData(data: unknown): boolean {
  if (typeof data !== 'string' || !data.startsWith(REDACTED_PREFIX)) return false;
  const [encoded = '', hash] = data.slice(REDACTED_PREFIX.length).split('.');
  return hash === digest(`redacted\u0000${Buffer.from(encoded, 'base64url').toString()}`);
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 32);
}
