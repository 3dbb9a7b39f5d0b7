// Every string a page (the drift report, the mutation report, the tape report) takes from data passes through escapeHtml.
import { escapeControls } from './escape-controls.js';

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * Text safe in an element and in a double-quoted attribute. A control character is shown as its
 * escape (`\u001b`), as the terminal shows it: no page holds one raw (HTML has no reference for
 * most of them, and one for U+0080–U+009F reads as another character).
 */
export function escapeHtml(text: string): string {
  return escapeControls(text).replace(/[&<>"']/g, (character) => HTML_ESCAPES[character]!);
}
