// A tape of many recorded OpenAI chat completions, written line by line (a large tape costs what
// one line costs to make), and a suite script that replays some of them through the proxy.
import { closeSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { compileKeyRules, createHeader, exchangeKey, serializeLine, sha256Hex, type Exchange } from 'modeltape/recordings';

/** The request body recorded at `index` (its tape line is index + 2). */
export function chatRequestBody(index: number): Record<string, unknown> {
  return {
    model: 'gpt-4o-mini',
    messages: [
      { role: 'system', content: 'You answer for a parcel company, briefly, citing the order number.' },
      { role: 'user', content: `Where is order ${index}? It was due on day ${index % 31}.` },
    ],
    temperature: 0,
  };
}

/** The exchange recorded at `index`. */
export function chatExchange(index: number): Exchange {
  const rules = compileKeyRules();
  const body = chatRequestBody(index);
  const request = {
    method: 'POST',
    path: '/v1/chat/completions',
    query: [],
    headers: { 'content-type': 'application/json' },
    body: { json: body },
    bodySha256: sha256Hex(JSON.stringify(body)),
  } as Exchange['request'];
  const json = {
    id: `chatcmpl-test${index}`,
    object: 'chat.completion',
    created: 1730000000 + index,
    model: 'gpt-4o-mini-2024-07-18',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: `Order ${index} left the depot at 09:${String(index % 60).padStart(2, '0')} and is on its way. `.repeat(5),
          refusal: null,
        },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage: { prompt_tokens: 40, completion_tokens: 90, total_tokens: 130 },
  };
  return {
    key: exchangeKey('openai', request, rules),
    ordinal: 0,
    upstream: 'openai',
    source: 'live',
    request,
    response: { status: 200, headers: { 'content-type': 'application/json' }, body: { json, sha256: sha256Hex(JSON.stringify(json)) } },
  } as Exchange;
}

/**
 * Writes a tape of `count` exchanges (`chatExchange(0…count-1)`), a megabyte at a time.
 * `lineText` may change how a line is written (a CRLF ending), by its index.
 */
export function writeChatTape(file: string, count: number, lineText: (index: number, line: string) => string = (_index, line) => line): void {
  const descriptor = openSync(file, 'w');
  let pending = serializeLine(createHeader(compileKeyRules().rules));
  for (let index = 0; index < count; index++) {
    pending += lineText(index, serializeLine(chatExchange(index)));
    if (pending.length > 1 << 20) {
      writeSync(descriptor, pending);
      pending = '';
    }
  }
  writeSync(descriptor, pending);
  closeSync(descriptor);
}

/**
 * Writes a suite script that asks for the recorded requests at `indexes` through the proxy
 * (`OPENAI_BASE_URL`) and fails unless each is answered 200; with `keepCopiesIn`, it first copies
 * every tape modeltape mutate swapped in for it there (`<pid>.jsonl`), for the test to read.
 */
export function writeChatSuite(file: string, indexes: readonly number[], keepCopiesIn?: string): void {
  writeFileSync(
    file,
    `import { copyFileSync } from 'node:fs';
const keep = ${JSON.stringify(keepCopiesIn ?? null)};
const swapped = JSON.parse(process.env.MODELTAPE_TAPE_SWAP ?? '{}');
if (keep !== null) for (const { tape } of Object.values(swapped)) copyFileSync(tape, \`\${keep}/\${process.pid}.jsonl\`);
for (const body of ${JSON.stringify(indexes.map(chatRequestBody))}) {
  const response = await fetch(\`\${process.env.OPENAI_BASE_URL}/chat/completions\`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer fake-test-key' },
    body: JSON.stringify(body),
  });
  if (response.status !== 200) process.exit(1);
  await response.text();
}
`,
  );
}
