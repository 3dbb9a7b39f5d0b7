import type { SecretLocation } from './errors.js';
import { indexPath, propertyPath } from './json-path.js';

/** Shapes of credentials that must never be written to a tape, with the name each is reported by. */
export const SECRET_PATTERNS: ReadonlyArray<{ rule: string; pattern: RegExp }> = [
  { rule: 'anthropic-key', pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/ },
  { rule: 'openai-key', pattern: /\bsk-(?!ant-)[A-Za-z0-9_-]{20,}/ },
  { rule: 'bearer-token', pattern: /\bBearer\s+[A-Za-z0-9._~+/=-]{20,}/i },
  { rule: 'google-key', pattern: /\bAIza[0-9A-Za-z_-]{35}/ },
  { rule: 'aws-access-key', pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/ },
];

// Every pattern starts with one of these. No word boundaries: in a serialized line a key may
// follow an escape such as `\n`, where `\b` would not match.
const ANCHORS = /sk-|bearer|AIza|AKIA|ASIA/i;

/**
 * A cheap pre-filter: false only when the text cannot hold anything {@link findSecrets} would
 * find. It may say true for text that holds none (then the structural scan decides).
 */
export function mayHoldSecret(text: string): boolean {
  return ANCHORS.test(text);
}

/**
 * Every string (and property name) in a value that holds something shaped like a credential,
 * addressed by JSON access path from `root`.
 */
export function findSecrets(value: unknown, root = ''): SecretLocation[] {
  const found: SecretLocation[] = [];
  walk(value, root, found);
  return found;
}

function walk(value: unknown, path: string, found: SecretLocation[]): void {
  if (typeof value === 'string') {
    inspect(value, path, found);
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => walk(item, indexPath(path, index), found));
  } else if (typeof value === 'object' && value !== null) {
    for (const [name, item] of Object.entries(value)) {
      // A key used as a property name must not reappear whole in the path that reports it.
      const secret = secretIn(name);
      const shownName = secret === undefined ? name : name.replace(secret.match, mask(secret.match, false));
      const childPath = propertyPath(path, shownName);
      if (secret !== undefined) found.push({ path: `${childPath} (the property name)`, rule: secret.rule, masked: mask(secret.match) });
      walk(item, childPath, found);
    }
  }
}

function inspect(text: string, path: string, found: SecretLocation[]): void {
  const secret = secretIn(text);
  if (secret !== undefined) found.push({ path, rule: secret.rule, masked: mask(secret.match) });
}

function secretIn(text: string): { rule: string; match: string } | undefined {
  if (!mayHoldSecret(text)) return undefined;
  for (const { rule, pattern } of SECRET_PATTERNS) {
    const match = pattern.exec(text);
    if (match) return { rule, match: match[0] };
  }
  return undefined;
}

/** Keeps a recognisable prefix and the length; never the tail, which identifies a key. */
function mask(secret: string, quoted = true): string {
  const prefix = secret.startsWith('sk-ant-') ? 'sk-ant-' : secret.startsWith('sk-') ? 'sk-' : secret.slice(0, 7);
  return quoted ? `"${prefix}…" (${secret.length} characters)` : `${prefix}…`;
}
