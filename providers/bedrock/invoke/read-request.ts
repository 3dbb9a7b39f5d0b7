import { readMessagesRequest } from '../../anthropic/messages/read-request.js';
import type { AskedTurn } from '../../turn.js';
import type { Route } from '../../vocabulary.js';
import { readConverseShaped } from '../converse/read-request.js';
import { bodyFamilyOf } from './family.js';

/**
 * What an InvokeModel (or InvokeModelWithResponseStream) request shows the model, read by the
 * format of the model's own body: one with `anthropic_version` is Anthropic Messages without
 * `model` (read by the Messages reader); one with `messages` of content blocks is Amazon Nova's,
 * which is Converse's shape (read by the Converse reader). The model and whether it streams come
 * from the path. Any other body (Titan's `inputText`, Llama's `prompt`, …) is not read: it throws,
 * and `readTurn` gives undefined.
 */
export function readInvokeRequest(body: Record<string, unknown>, index: number, route?: Route): AskedTurn {
  const model = route?.model ?? 'unknown';
  const stream = route?.stream === true;
  const family = bodyFamilyOf(body);
  if (family === 'anthropic-claude') return { ...readMessagesRequest(body, index), provider: 'bedrock', api: 'bedrock-invoke', model, stream };
  if (family === 'amazon-nova') return readConverseShaped(body, index, route, 'bedrock-invoke');
  throw new TypeError('an InvokeModel body in a format other than Anthropic Messages or Amazon Nova is not read as a turn');
}
