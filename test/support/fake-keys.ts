/**
 * Keys in a real key's shape that say they are fake, built at runtime so that no file holds a
 * key-shaped literal (for secret scanners, this project's own among them). The part after the
 * prefix is `tail`; the default tail says FAKE eight times.
 */
export function fakeOpenAiKey(tail = `${'FAKE'.repeat(8)}0000`): string {
  return `${['sk', 'proj'].join('-')}-${tail}`;
}

/** An Anthropic key's shape (`sk-ant-api03-…`), fake; see `fakeOpenAiKey`. */
export function fakeAnthropicKey(tail = `${'FAKE'.repeat(8)}-0000`): string {
  return `${['sk', 'ant', 'api03'].join('-')}-${tail}`;
}

/** A Google API key's shape (`AIza…`), fake; see `fakeOpenAiKey`. */
export function fakeGoogleKey(tail = `${'FAKE'.repeat(8)}000`): string {
  return `${'AI' + 'za'}${tail}`;
}
