import { escapeControls } from './escape-controls.js';
import { maskSecrets } from './secret-scan.js';

/**
 * What every text modeltape writes for a reader is made of: `text` with each key masked
 * (`[openai-key 44 chars]`), then each control character escaped (`\u001b`). Masked first: a key
 * broken by a control character is still read as one.
 */
export function outputText(text: string): string {
  return escapeControls(maskSecrets(text));
}
