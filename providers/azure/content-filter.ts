/**
 * Azure OpenAI's content-filter annotations, as a resource serves them (api-version 2024-02-01 and
 * later, and the v1 routes): `prompt_filter_results` beside a chat completion's choices (in a
 * stream, alone in a first chunk with no choices), `content_filter_results` on each choice, and a
 * Responses answer's `content_filters`. Shapes from Azure's content-filtering documentation and
 * recorded answers (test/fixtures/azure/README.md names each).
 */

/** The harm categories Azure grades by severity. */
export const AZURE_SEVERITY_CATEGORIES = ['hate', 'self_harm', 'sexual', 'violence'] as const;
/** The categories Azure only detects: a jailbreak in the prompt, protected material in the completion. */
export const AZURE_DETECTION_CATEGORIES = ['jailbreak', 'protected_material_text', 'protected_material_code'] as const;
export const AZURE_FILTER_CATEGORIES = [...AZURE_SEVERITY_CATEGORIES, ...AZURE_DETECTION_CATEGORIES] as const;
export type AzureFilterCategory = (typeof AZURE_FILTER_CATEGORIES)[number];
export const AZURE_SEVERITIES = ['safe', 'low', 'medium', 'high'] as const;
export type AzureSeverity = (typeof AZURE_SEVERITIES)[number];

/** What filtered an answer or a prompt: a category, and for a graded one its severity. */
export interface AzureFilterHit {
  category: AzureFilterCategory;
  /** @default 'high' (for a graded category; a detected one has none) */
  severity?: Exclude<AzureSeverity, 'safe'>;
}

type Results = Record<string, Record<string, unknown>>;

/** One category's result: graded (`{filtered, severity}`) or detected (`{filtered, detected}`). */
function result(category: AzureFilterCategory, hit: AzureFilterHit | undefined): Record<string, unknown> {
  const filtered = hit?.category === category;
  if ((AZURE_SEVERITY_CATEGORIES as readonly string[]).includes(category)) return { filtered, severity: filtered ? (hit!.severity ?? 'high') : 'safe' };
  return { filtered, detected: filtered };
}

/** The prompt's results: the four graded categories and jailbreak, in the order a resource sends them. */
export function promptFilterResults(hit?: AzureFilterHit): Results {
  const results: Results = {};
  for (const category of ['hate', 'jailbreak', 'self_harm', 'sexual', 'violence'] as const) results[category] = result(category, hit);
  if (hit !== undefined && !(hit.category in results)) results[hit.category] = result(hit.category, hit);
  return results;
}

/** A completion's results: the four graded categories and protected material. */
export function completionFilterResults(hit?: AzureFilterHit): Results {
  const results: Results = {};
  for (const category of ['hate', 'protected_material_code', 'protected_material_text', 'self_harm', 'sexual', 'violence'] as const)
    results[category] = result(category, hit);
  if (hit !== undefined && !(hit.category in results)) results[hit.category] = result(hit.category, hit);
  return results;
}

/** A chat completion's `prompt_filter_results`: one entry, the prompt's. */
export function promptFilterAnnotation(hit?: AzureFilterHit): Array<Record<string, unknown>> {
  return [{ prompt_index: 0, content_filter_results: promptFilterResults(hit) }];
}

/** The first chunk of an Azure chat stream: no choices, only the prompt's annotations. */
export function promptAnnotationChunk(): Record<string, unknown> {
  return { choices: [], created: 0, id: '', model: '', object: '', prompt_filter_results: promptFilterAnnotation() };
}

/**
 * A Responses answer's `content_filters`: the prompt's entry and the completion's, each with
 * whether it was blocked, its results and the offsets they cover (`end_offset` the length checked).
 */
export function responsesContentFilters(promptLength: number, completionLength: number, completionHit?: AzureFilterHit): Array<Record<string, unknown>> {
  return [
    {
      blocked: false,
      source_type: 'prompt',
      content_filter_raw: null,
      content_filter_results: promptFilterResults(),
      content_filter_offsets: { start_offset: 0, end_offset: promptLength, check_offset: 0 },
    },
    {
      blocked: completionHit !== undefined,
      source_type: 'completion',
      content_filter_raw: null,
      content_filter_results: completionFilterResults(completionHit),
      content_filter_offsets: { start_offset: 0, end_offset: completionLength, check_offset: 0 },
    },
  ];
}

/** The message of Azure's 400 for a prompt its filter blocks, as a resource words it. */
export const PROMPT_FILTERED_MESSAGE =
  "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry. To learn more about our content filtering policies please read our documentation: https://go.microsoft.com/fwlink/?linkid=2198766";

/** The `innererror` of that 400: the policy, and the prompt's results with the category that blocked it. */
export function promptFilteredInnerError(hit: AzureFilterHit): Record<string, unknown> {
  return { code: 'ResponsibleAIPolicyViolation', content_filter_result: promptFilterResults(hit) };
}
