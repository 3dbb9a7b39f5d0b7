// Every text modeltape writes for a reader (a terminal, a CI log, a page) shows the data it quotes
// as text: a recorded answer, a model name or a finish reason holds whatever the provider sent.

// C0 controls but the line feed and the tab (which lay text out), DEL, and the C1 controls
// (U+0080–U+009F: U+009B is a one-character CSI to a terminal that reads 8-bit controls).
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
const SHORT: Record<string, string> = { '\b': '\\b', '\f': '\\f', '\r': '\\r' };

/**
 * `text` with every control character written as JSON writes it (`\u001b`, `\u009b`, `\r`),
 * except the line feed and the tab: so a recorded answer cannot move the cursor, clear or retitle
 * a terminal, ring it, or overwrite a CI log's lines. A JSON text stays the same JSON (a control
 * character can only stand inside one of its strings, where the escape means the same character).
 */
export function escapeControls(text: string): string {
  CONTROL.lastIndex = 0;
  if (!CONTROL.test(text)) return text;
  return text.replace(CONTROL, (character) => SHORT[character] ?? `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
