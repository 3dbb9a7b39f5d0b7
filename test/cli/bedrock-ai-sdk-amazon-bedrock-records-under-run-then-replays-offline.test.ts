import { expect } from 'vitest';
import { recordsUnderRunThenReplaysOffline } from '../support/bedrock-client-scenario.js';

// Unmodified application code, as the AI SDK's docs write it: both providers of
// @ai-sdk/amazon-bedrock take their endpoint from AWS_ENDPOINT_URL_BEDROCK_RUNTIME (set by
// modeltape run), their region from AWS_REGION and their credentials from AWS_ACCESS_KEY_ID and
// AWS_SECRET_ACCESS_KEY only (no profile, no chain), and sign with aws4fetch over fetch. `bedrock`
// calls Converse and ConverseStream; `bedrockAnthropic` InvokeModel with an Anthropic Messages
// body and InvokeModelWithResponseStream.
const APP = `import { bedrock } from '@ai-sdk/amazon-bedrock';
import { bedrockAnthropic } from '@ai-sdk/amazon-bedrock/anthropic';
import { generateText, streamText } from 'ai';
const modelId = 'anthropic.claude-3-5-haiku-20241022-v1:0';
const out = {};
for (const [name, model] of [['converse', bedrock(modelId)], ['invoke', bedrockAnthropic(modelId)]]) {
  out[name] = (await generateText({ model, prompt: process.env.PROMPT ?? 'Say hello', maxRetries: 0 })).text;
  const result = streamText({ model, prompt: 'Count to three', maxRetries: 0, onError: ({ error }) => { throw error; } });
  out[name + 'Streamed'] = '';
  for await (const delta of result.textStream) out[name + 'Streamed'] += delta;
}
console.log(JSON.stringify(out));
`;
const MODEL_PATH = '/model/anthropic.claude-3-5-haiku-20241022-v1%3A0';

recordsUnderRunThenReplaysOffline({
  name: 'unmodified @ai-sdk/amazon-bedrock code records Converse and InvokeModel, streamed and not, under modeltape run, re-signed, and replays offline with no credentials',
  app: APP,
  // In replay the provider throws without AWS_ACCESS_KEY_ID and AWS_REGION: modeltape run sets placeholders.
  region: 'AWS_REGION',
  // encodeURIComponent, as the AWS SDK: these key alike with BedrockRuntimeClient's requests.
  paths: [`${MODEL_PATH}/converse`, `${MODEL_PATH}/converse-stream`, `${MODEL_PATH}/invoke`, `${MODEL_PATH}/invoke-with-response-stream`],
  checkRequests: (requests) => expect(JSON.parse(requests[2]!.body)).toMatchObject({ anthropic_version: 'bedrock-2023-05-31' }),
  checkLive(live) {
    expect(live.invoke).toBe('42');
    for (const name of ['converse', 'converseStreamed', 'invokeStreamed']) expect(String(live[name]).length, name).toBeGreaterThan(0);
  },
  difference: 'at .messages[0].content[0].text: recorded "Say hello" sent "Say goodbye"',
});
