/**
 * The order of an Anthropic Messages stream, as the API sends it and `@anthropic-ai/sdk`'s
 * `MessageStream` expects it: `message_start`, then each content block as `content_block_start`
 * → `content_block_delta`* → `content_block_stop` (indexes 0, 1, … in turn, the delta's type
 * fitting the block's), then `message_delta` and `message_stop`. `ping` may come anywhere; an
 * `error` event ends the stream early. Each event's `event:` line names its JSON `type`.
 */

/** One server-sent event: its `event:` line (when it has one) and its `data:`, as text. */
export interface GrammarEvent {
  event?: string | undefined;
  data: string;
}

const DELTAS: Record<string, string[]> = {
  text: ['text_delta', 'citations_delta'],
  tool_use: ['input_json_delta'],
  server_tool_use: ['input_json_delta'],
  thinking: ['thinking_delta', 'signature_delta'],
  redacted_thinking: [],
};

/** What in `events` breaks the Messages stream grammar, one line each (`event 3 (content_block_delta): …`); empty when it holds. */
export function checkMessagesStreamGrammar(events: readonly GrammarEvent[]): string[] {
  const violations: string[] = [];
  if (events.length === 0) return ['the stream has no events: expected message_start … message_stop'];
  let state = 'start' as 'start' | 'between' | 'block' | 'delta' | 'stop' | 'ended';
  let block: { index: number; type: string } | undefined;
  let nextIndex = 0;
  events.forEach((frame, position) => {
    const where = `event ${position}`;
    let data: Record<string, unknown>;
    try {
      data = JSON.parse(frame.data) as Record<string, unknown>;
    } catch {
      violations.push(`${where}: data is not JSON: ${frame.data.slice(0, 80)}`);
      return;
    }
    const type = typeof data.type === 'string' ? data.type : '(no type)';
    const at = `${where} (${type})`;
    if (frame.event !== undefined && frame.event !== type) violations.push(`${at}: the event line says "${frame.event}", the data's type "${type}"`);
    if (state === 'ended') {
      violations.push(`${at}: comes after the stream ended`);
      return;
    }
    if (type === 'ping') return;
    if (type === 'error') {
      state = 'ended';
      return;
    }
    const expect = (allowed: string[]): boolean => {
      if (allowed.includes(type)) return true;
      violations.push(`${at}: expected ${allowed.join(' or ')}`);
      return false;
    };
    switch (state) {
      case 'start':
        if (expect(['message_start'])) state = 'between';
        return;
      case 'between':
        if (!expect(['content_block_start', 'message_delta'])) return;
        if (type === 'message_delta') {
          state = 'stop';
          return;
        }
        if (data.index !== nextIndex) violations.push(`${at}: block index ${String(data.index)}, expected ${nextIndex}`);
        block = { index: Number(data.index), type: String((data.content_block as Record<string, unknown> | undefined)?.type) };
        nextIndex++;
        state = 'block';
        return;
      case 'block':
      case 'delta': {
        if (!expect(['content_block_delta', 'content_block_stop'])) return;
        if (data.index !== block!.index) violations.push(`${at}: index ${String(data.index)} inside block ${block!.index}`);
        if (type === 'content_block_stop') {
          state = 'between';
          return;
        }
        const deltaType = String((data.delta as Record<string, unknown> | undefined)?.type);
        const allowed = DELTAS[block!.type];
        if (allowed !== undefined && !allowed.includes(deltaType)) violations.push(`${at}: a ${deltaType} inside a ${block!.type} block`);
        state = 'delta';
        return;
      }
      case 'stop':
        if (expect(['message_stop'])) state = 'ended';
        return;
    }
  });
  if (state !== 'ended') violations.push(`the stream stops after ${events.length} events without message_stop`);
  return violations;
}
