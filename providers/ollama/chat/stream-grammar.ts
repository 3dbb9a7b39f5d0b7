/**
 * The order of an Ollama `/api/chat` stream (NDJSON, one JSON object a line): objects with
 * `done: false` carrying a `message`, then exactly one `done: true` carrying `done_reason` and the
 * eval counts (`prompt_eval_count`, `eval_count`), and nothing after it. An `{"error":"…"}` line
 * ends the stream early instead (the status stays 200).
 */

/** What in `lines` (the stream's non-empty lines) breaks the /api/chat stream grammar, one line each (`line 3: …`); empty when it holds. */
export function checkOllamaChatStreamGrammar(lines: readonly string[]): string[] {
  const violations: string[] = [];
  if (lines.length === 0) return ['the stream has no lines: expected done:false objects, then one done:true'];
  let ended: 'done' | 'error' | undefined;
  lines.forEach((line, position) => {
    const where = `line ${position}`;
    if (ended !== undefined) {
      violations.push(`${where}: comes after ${ended === 'done' ? 'the done:true object' : 'the error'}`);
      return;
    }
    let data: Record<string, unknown>;
    try {
      data = JSON.parse(line) as Record<string, unknown>;
    } catch {
      violations.push(`${where}: is not JSON: ${line.slice(0, 80)}`);
      return;
    }
    if (typeof data !== 'object' || data === null || Array.isArray(data)) {
      violations.push(`${where}: expected a JSON object`);
      return;
    }
    if ('error' in data) {
      if (typeof data.error !== 'string') violations.push(`${where}: .error: expected a string`);
      ended = 'error';
      return;
    }
    if (typeof data.done !== 'boolean') violations.push(`${where}: .done: expected true or false`);
    if (typeof data.message !== 'object' || data.message === null) violations.push(`${where}: .message: expected an object`);
    if (data.done !== true) return;
    if (typeof data.done_reason !== 'string') violations.push(`${where}: the done:true object has no done_reason`);
    for (const name of ['prompt_eval_count', 'eval_count'])
      if (typeof data[name] !== 'number') violations.push(`${where}: the done:true object has no ${name}`);
    ended = 'done';
  });
  if (ended === undefined) violations.push(`the stream stops after ${lines.length} lines without a done:true object`);
  return violations;
}
