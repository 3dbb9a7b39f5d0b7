import { refuseMessagesRequest } from '../../anthropic/messages/refusals.js';
import type { ProviderError } from '../../provider-error.js';
import type { RefusalOptions } from '../../refusal.js';
import { refuseConverseShaped } from '../converse/refusals.js';
import { invokeFamilyOf } from './family.js';

// What an Anthropic Messages body on Bedrock must hold, and what Bedrock takes from the path
// instead (the model, whether it streams) or belongs to another family's body.
const CLAUDE_REQUIRED = ['anthropic_version', 'max_tokens', 'messages'];
const CLAUDE_FOREIGN = ['model', 'stream', 'inferenceConfig', 'toolConfig'];
// Nova's InvokeModel body is Converse's shape (system, messages, inferenceConfig, toolConfig):
// the members of another family's body are not permitted in it.
const NOVA_FOREIGN = ['anthropic_version', 'anthropic_beta', 'max_tokens', 'model', 'stream', 'prompt', 'inputText'];

/**
 * The 400 `ValidationException` Bedrock answers an InvokeModel (or InvokeModelWithResponseStream)
 * body with before any model runs, or undefined; `model` is the model id of the path. A body is
 * held to the schema of the model's family (see {@link invokeFamilyOf}):
 *
 * - Anthropic Claude: `anthropic_version`, `max_tokens` and `messages` required, `model` and
 *   `stream` not permitted (the path carries them), in the words of the service's schema check
 *   (`Malformed input request: #: required key [max_tokens] not found, please reformat your input
 *   and try again.`, diffbot/code-gpt-docs#300; `#: extraneous key [stream] is not permitted`,
 *   fumito-ito/AnthropicSwiftSDK#19, BerriAI/litellm#7416; several at once: `Malformed input
 *   request: 2 schema violations found, …`, truera/trulens#609); then what Anthropic's Messages
 *   API refuses, with its message, as Bedrock relays it (a first message not from the user
 *   included, which Bedrock refuses and Anthropic's own API no longer does);
 * - Amazon Nova: another family's members not permitted, then what Converse refuses in the
 *   conversation (the Nova InvokeModel API is Converse's, its docs say).
 *
 * A body of no family read here is not refused: undefined.
 */
export function refuseInvokeRequest(body: Record<string, unknown>, options: RefusalOptions, model: string | undefined): ProviderError | undefined {
  const family = invokeFamilyOf(model, body);
  if (family === 'anthropic-claude') {
    const violations = [
      ...CLAUDE_REQUIRED.filter((name) => body[name] === undefined).map((name) => `#: required key [${name}] not found`),
      ...CLAUDE_FOREIGN.filter((name) => name in body).map((name) => `#: extraneous key [${name}] is not permitted`),
    ];
    if (violations.length > 0) return malformed(violations);
    const refusal = refuseMessagesRequest({ ...body, model: model ?? 'unknown' }, { ...options, anthropicPlatform: 'bedrock' });
    return refusal === undefined ? undefined : validation(refusal.message);
  }
  if (family === 'amazon-nova') {
    const violations = NOVA_FOREIGN.filter((name) => name in body).map((name) => `#: extraneous key [${name}] is not permitted`);
    if (!Array.isArray(body.messages)) violations.unshift('#: required key [messages] not found');
    if (violations.length > 0) return malformed(violations);
    return refuseConverseShaped(body);
  }
  return undefined;
}

function validation(message: string): ProviderError {
  return { status: 400, type: 'ValidationException', message };
}

/** The schema check's answer: the one violation, or how many there are. */
function malformed(violations: readonly string[]): ProviderError {
  const found = violations.length === 1 ? violations[0]! : `${violations.length} schema violations found`;
  return validation(`Malformed input request: ${found}, please reformat your input and try again.`);
}
