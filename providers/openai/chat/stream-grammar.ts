/**
 * The order of an OpenAI Chat Completions stream (`stream: true`): `data:` lines without an
 * `event:` line, each a `chat.completion.chunk` of one id, a choice's `finish_reason` set once
 * and then nothing more for that choice, at most a usage chunk (`choices: []`) after the last
 * finish, and `data: [DONE]` last. An `{"error":…}` chunk ends the stream instead of `[DONE]`.
 * Azure OpenAI's first chunk, the prompt's annotations alone, goes before the chunks.
 */

/** One server-sent event: its `event:` line (when it has one) and its `data:`, as text. */
export interface GrammarEvent {
  event?: string | undefined;
  data: string;
}

/** What in `events` breaks the Chat Completions stream grammar, one line each; empty when it holds. */
export function checkChatStreamGrammar(events: readonly GrammarEvent[]): string[] {
  const violations: string[] = [];
  if (events.length === 0) return ['the stream has no events: expected chat.completion.chunk … [DONE]'];
  let id: unknown;
  let chunks = 0;
  let ended: 'done' | 'error' | undefined;
  const finished = new Set<number>();
  let usage = false;
  events.forEach((frame, position) => {
    const where = `event ${position}`;
    if (ended !== undefined) {
      violations.push(`${where}: comes after ${ended === 'done' ? '[DONE]' : 'the error'}`);
      return;
    }
    if (frame.event !== undefined) violations.push(`${where}: has an event line "${frame.event}"; chat chunks have none`);
    if (frame.data === '[DONE]') {
      if (chunks === 0) violations.push(`${where}: [DONE] before any chunk`);
      ended = 'done';
      return;
    }
    let data: Record<string, unknown>;
    try {
      data = JSON.parse(frame.data) as Record<string, unknown>;
    } catch {
      violations.push(`${where}: data is neither JSON nor [DONE]: ${frame.data.slice(0, 80)}`);
      return;
    }
    if ('error' in data) {
      ended = 'error';
      return;
    }
    // Azure OpenAI opens its streams with the prompt's annotations, in a chunk that is no
    // chat.completion.chunk: no choices, `prompt_filter_results`, id and object empty.
    if (chunks === 0 && isAzurePromptAnnotation(data)) return;
    chunks++;
    if (data.object !== 'chat.completion.chunk') violations.push(`${where}: object ${JSON.stringify(data.object)}, expected "chat.completion.chunk"`);
    if (chunks === 1) id = data.id;
    else if (data.id !== id) violations.push(`${where}: id ${JSON.stringify(data.id)}, the stream began as ${JSON.stringify(id)}`);
    if (usage) violations.push(`${where}: a chunk after the usage chunk`);
    const choices = Array.isArray(data.choices) ? (data.choices as Array<Record<string, unknown>>) : [];
    if (choices.length === 0 && data.usage !== null && data.usage !== undefined) usage = true;
    for (const choice of choices) {
      const index = Number(choice.index);
      if (finished.has(index)) violations.push(`${where}: choice ${index} goes on after its finish_reason`);
      if (choice.finish_reason !== null && choice.finish_reason !== undefined) finished.add(index);
    }
  });
  if (ended === undefined) violations.push(`the stream stops after ${events.length} events without data: [DONE]`);
  return violations;
}

function isAzurePromptAnnotation(data: Record<string, unknown>): boolean {
  return Array.isArray(data.choices) && data.choices.length === 0 && Array.isArray(data.prompt_filter_results) && data.object === '';
}
