import { isRecord } from '../../../core/internal.js';
import { CONVERSE_STREAM_EVENTS, type ConverseStreamEvent } from './read-answer.js';

/**
 * What in `events` breaks the ConverseStream grammar, one line each (`event 3 (contentBlockDelta):
 * …`); empty when it holds. The order Bedrock sends and the AWS SDK reads: `messageStart`, then
 * each content block's `contentBlockStart`? → `contentBlockDelta`* → `contentBlockStop` (indexes
 * 0, 1, … in turn; a block is opened by a start or by its first delta), then `messageStop` and
 * `metadata`. Nova's InvokeModelWithResponseStream chunks carry the same events. An exception
 * message (its type from `:exception-type`: `modelStreamErrorException`, `throttlingException`…)
 * ends the stream early, as Bedrock breaks a stream off: nothing may follow it.
 */
export function checkConverseStreamGrammar(events: readonly ConverseStreamEvent[]): string[] {
  const violations: string[] = [];
  if (events.length === 0) return ['the stream has no events: expected messageStart … messageStop, metadata'];
  let state = 'start' as 'start' | 'between' | 'block' | 'stopped' | 'ended' | 'broken';
  let open: number | undefined;
  let nextIndex = 0;
  events.forEach(({ type, payload }, position) => {
    const at = `event ${position} (${type ?? '(no type)'})`;
    if (state === 'broken') {
      violations.push(`${at}: comes after the stream broke off with an exception`);
      return;
    }
    if (type !== undefined && isException(type)) {
      state = 'broken';
      return;
    }
    if (type === undefined || !(CONVERSE_STREAM_EVENTS as readonly string[]).includes(type)) {
      violations.push(`${at}: not an event of a ConverseStream (expected one of ${CONVERSE_STREAM_EVENTS.join(', ')})`);
      return;
    }
    if (!isRecord(payload)) {
      violations.push(`${at}: its payload is not a JSON object`);
      return;
    }
    const index = payload.contentBlockIndex;
    switch (type) {
      case 'messageStart':
        if (state !== 'start') violations.push(`${at}: messageStart after the stream began`);
        state = 'between';
        return;
      case 'contentBlockStart':
      case 'contentBlockDelta':
      case 'contentBlockStop': {
        if (state === 'start') violations.push(`${at}: a content block before messageStart`);
        if (state === 'stopped' || state === 'ended') violations.push(`${at}: a content block after messageStop`);
        if (typeof index !== 'number') {
          violations.push(`${at}: no contentBlockIndex`);
          return;
        }
        if (open === undefined) {
          if (type === 'contentBlockStop') violations.push(`${at}: contentBlockStop of block ${index}, which was never opened`);
          else if (index !== nextIndex) violations.push(`${at}: block ${index} opened where block ${nextIndex} was next`);
          else open = index;
        } else if (index !== open) violations.push(`${at}: block ${index} while block ${open} is open`);
        else if (type === 'contentBlockStart') violations.push(`${at}: contentBlockStart of block ${index}, already open`);
        if (type === 'contentBlockDelta' && !isRecord(payload.delta)) violations.push(`${at}: no delta`);
        if (type === 'contentBlockStop' && open === index) {
          open = undefined;
          nextIndex = index + 1;
        }
        state = 'block';
        return;
      }
      case 'messageStop':
        if (open !== undefined) violations.push(`${at}: messageStop while block ${open} is open`);
        if (state === 'start' || state === 'stopped' || state === 'ended') violations.push(`${at}: messageStop out of place`);
        if (typeof payload.stopReason !== 'string') violations.push(`${at}: no stopReason`);
        state = 'stopped';
        return;
      case 'metadata':
        if (state !== 'stopped') violations.push(`${at}: metadata before messageStop`);
        state = 'ended';
        return;
    }
  });
  if (state !== 'stopped' && state !== 'ended' && state !== 'broken') violations.push('the stream ends without messageStop');
  return violations;
}

/** Whether an event type is an exception's, as `:exception-type` names one (lower camel case, ending in `Exception`). */
export function isException(type: string): boolean {
  return /^[a-z][A-Za-z]*Exception$/.test(type);
}
