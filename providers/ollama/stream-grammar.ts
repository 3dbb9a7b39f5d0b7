/**
 * The order of an Ollama stream (NDJSON, one JSON object a line), the same for `/api/chat` and
 * `/api/generate`: objects with `done: false` carrying a piece of the answer (chat: a `message`
 * object; generate: a `response` string), then exactly one `done: true` carrying `done_reason`
 * and the eval counts (`prompt_eval_count`, `eval_count`), and nothing after it. An
 * `{"error":"…"}` line ends the stream early instead (the status stays 200).
 */

/** The field each object of an API's stream carries its piece of the answer in, and its JSON type. */
const PIECES = {
  chat: { field: 'message', type: 'object', expected: 'an object' },
  generate: { field: 'response', type: 'string', expected: 'a string' },
} as const;

/** What in `lines` (the stream's non-empty lines) breaks the /api/chat stream grammar, one line each (`line 3: …`); empty when it holds. */
export function checkOllamaChatStreamGrammar(lines: readonly string[]): string[] {
  return checkOllamaStreamGrammar(lines, 'chat');
}

/** The same for /api/generate, whose objects carry `response` text in place of `message`. */
export function checkOllamaGenerateStreamGrammar(lines: readonly string[]): string[] {
  return checkOllamaStreamGrammar(lines, 'generate');
}

function checkOllamaStreamGrammar(lines: readonly string[], api: keyof typeof PIECES): string[] {
  const piece = PIECES[api];
  const violations: string[] = [];
  if (lines.length === 0) return ['the stream has no lines: expected done:false objects, then one done:true'];
  let ended: 'done' | 'error' | undefined;
  lines.forEach((line, position) => {
    const where = `line ${position}`;
    if (ended !== undefined) {
      violations.push(`${where}: comes after ${ended === 'done' ? 'the done:true object' : 'the error'}`);
      return;
    }
    let data: unknown;
    try {
      data = JSON.parse(line);
    } catch {
      violations.push(`${where}: is not JSON: ${line.slice(0, 80)}`);
      return;
    }
    if (typeof data !== 'object' || data === null || Array.isArray(data)) {
      violations.push(`${where}: expected a JSON object`);
      return;
    }
    const object = data as Record<string, unknown>;
    if ('error' in object) {
      if (typeof object.error !== 'string') violations.push(`${where}: .error: expected a string`);
      ended = 'error';
      return;
    }
    if (typeof object.done !== 'boolean') violations.push(`${where}: .done: expected true or false`);
    const value = object[piece.field];
    if (typeof value !== piece.type || value === null) violations.push(`${where}: .${piece.field}: expected ${piece.expected}`);
    if (object.done !== true) return;
    if (typeof object.done_reason !== 'string') violations.push(`${where}: the done:true object has no done_reason`);
    for (const name of ['prompt_eval_count', 'eval_count'])
      if (typeof object[name] !== 'number') violations.push(`${where}: the done:true object has no ${name}`);
    ended = 'done';
  });
  if (ended === undefined) violations.push(`the stream stops after ${lines.length} lines without a done:true object`);
  return violations;
}
