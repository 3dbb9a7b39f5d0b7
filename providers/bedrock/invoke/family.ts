import { isRecord } from '../../../core/internal.js';

/**
 * The InvokeModel body families read here: Anthropic Claude's (Anthropic Messages without
 * `model` and `stream`, with `anthropic_version`) and Amazon Nova's (Converse's `messages` of
 * content blocks, `inferenceConfig`). Other models' bodies (Titan's `inputText`, Llama's
 * `prompt`, Mistral's, Cohere's) are not.
 */
export const INVOKE_FAMILIES = ['anthropic-claude', 'amazon-nova'] as const;
export type InvokeFamily = (typeof INVOKE_FAMILIES)[number];

/**
 * The family a model id names: `anthropic.claude-…` (and the inference profiles and ARNs that
 * hold it: `us.anthropic.claude-…`, `arn:aws:bedrock:…:inference-profile/global.anthropic.claude-…`),
 * `amazon.nova-…` (`us.amazon.nova-micro-v1:0`); undefined for another model, or an ARN that
 * names none (an application inference profile).
 */
export function modelFamilyOf(model: string | undefined): InvokeFamily | undefined {
  if (model === undefined) return undefined;
  const id = model.toLowerCase();
  if (/(^|[./:])anthropic\.|claude/.test(id)) return 'anthropic-claude';
  if (/(^|[./:])amazon\.nova|(^|[./:])nova-/.test(id)) return 'amazon-nova';
  return undefined;
}

/** The family a body is written in: one with `anthropic_version` is Claude's, one with a list of `messages` Nova's. */
export function bodyFamilyOf(body: unknown): InvokeFamily | undefined {
  if (!isRecord(body)) return undefined;
  if (typeof body.anthropic_version === 'string') return 'anthropic-claude';
  if (Array.isArray(body.messages)) return 'amazon-nova';
  return undefined;
}

/**
 * The family Bedrock holds a request to: the model's, as the service validates a body by the
 * model it is sent to, else (a model id that names none) the body's.
 */
export function invokeFamilyOf(model: string | undefined, body: unknown): InvokeFamily | undefined {
  return modelFamilyOf(model) ?? bodyFamilyOf(body);
}
