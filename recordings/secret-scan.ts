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

const ANY_SECRET = new RegExp(SECRET_PATTERNS.map(({ pattern }) => `(?:${pattern.source})`).join('|'), 'i');

/** True when the text holds anything shaped like a credential. One pass; the fast path. */
export function mayHoldSecret(text: string): boolean {
  return ANY_SECRET.test(text);
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
      inspect(name, `${propertyPath(path, name)} (the property name)`, found);
      walk(item, propertyPath(path, name), found);
    }
  }
}

function inspect(text: string, path: string, found: SecretLocation[]): void {
  if (!mayHoldSecret(text)) return;
  for (const { rule, pattern } of SECRET_PATTERNS) {
    const match = pattern.exec(text);
    if (match) {
      found.push({ path, rule, masked: mask(match[0]) });
      return;
    }
  }
}

/** Keeps a recognisable prefix and the length; never the tail, which identifies a key. */
function mask(secret: string): string {
  const prefix = secret.startsWith('sk-ant-') ? 'sk-ant-' : secret.startsWith('sk-') ? 'sk-' : secret.slice(0, 7);
  return `"${prefix}…" (${secret.length} characters)`;
}
