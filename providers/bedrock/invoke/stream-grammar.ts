import { isRecord } from '../../../core/internal.js';
import { checkMessagesStreamGrammar } from '../../anthropic/messages/stream-grammar.js';
import { converseEventOfChunk } from '../converse/read-answer.js';
import { checkConverseStreamGrammar } from '../converse/stream-grammar.js';

/** One message of an InvokeModelWithResponseStream, read: for a `chunk`, the model's own event its `bytes` carry. */
export interface InvokeStreamMessage {
  /** The `:event-type` (`chunk`), or for an exception its `:exception-type` (`modelStreamErrorException`). */
  event: string | undefined;
  /** `:message-type` is `exception` (or `error`). */
  exception: boolean;
  /** The model's event as text (a `chunk`'s decoded `bytes`), or the exception's payload. */
  data: string;
  /** `data` parsed; undefined when it is not JSON. */
  json: unknown;
}

/**
 * What in an InvokeModelWithResponseStream breaks its grammar, one line each; empty when it holds.
 * Every message is a `chunk`, whose events follow the model's own stream: a Claude stream's are
 * Anthropic Messages stream events (checked by that grammar: Bedrock sends no `ping`, and adds
 * `amazon-bedrock-invocationMetrics` to `message_stop`), a Nova stream's are ConverseStream's,
 * each under its type's key. An exception message ends the stream early, as Bedrock breaks one
 * off (for Claude it stands where Anthropic sends its `error` event, as @anthropic-ai/bedrock-sdk
 * reads it).
 */
export function checkInvokeStreamGrammar(messages: readonly InvokeStreamMessage[]): string[] {
  const foreign = messages
    .map((message, index) => ({ message, index }))
    .filter(({ message }) => !message.exception && message.event !== 'chunk')
    .map(({ message, index }) => `message ${index} (${message.event ?? '(no type)'}): not a chunk`);
  if (foreign.length > 0) return foreign;
  const claude = messages.some((message) => !message.exception && isRecord(message.json) && typeof message.json.type === 'string');
  if (claude)
    return checkMessagesStreamGrammar(
      messages.map((message) =>
        message.exception
          ? { event: 'error', data: JSON.stringify({ type: 'error', error: { type: message.event, message: messageOf(message.json) } }) }
          : { event: isRecord(message.json) && typeof message.json.type === 'string' ? message.json.type : undefined, data: message.data },
      ),
    );
  return checkConverseStreamGrammar(
    messages.map((message) =>
      message.exception ? { type: message.event, payload: message.json } : (converseEventOfChunk(message.json) ?? { type: undefined, payload: message.json }),
    ),
  );
}

function messageOf(json: unknown): string {
  return isRecord(json) && typeof json.message === 'string' ? json.message : '';
}
