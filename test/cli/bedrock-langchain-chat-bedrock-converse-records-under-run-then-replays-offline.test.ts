import { expect } from 'vitest';
import { recordsUnderRunThenReplaysOffline } from '../support/bedrock-client-scenario.js';

// Unmodified application code, as LangChain's docs write it: ChatBedrockConverse builds the AWS
// SDK's BedrockRuntimeClient (which, under modeltape run, takes its endpoint from
// AWS_ENDPOINT_URL_BEDROCK_RUNTIME), with the credentials of the SDK's default chain and the
// region of AWS_DEFAULT_REGION (the only region variable it reads). invoke calls Converse,
// stream ConverseStream.
const APP = `import { ChatBedrockConverse } from '@langchain/aws';
const model = new ChatBedrockConverse({ model: 'anthropic.claude-3-5-haiku-20241022-v1:0', maxRetries: 0 });
const out = {};
out.answer = (await model.invoke(process.env.PROMPT ?? 'Say hello')).content;
out.text = '';
for await (const chunk of await model.stream('Count to three')) out.text += typeof chunk.content === 'string' ? chunk.content : '';
console.log(JSON.stringify(out));
`;

recordsUnderRunThenReplaysOffline({
  name: 'unmodified ChatBedrockConverse code records Converse and ConverseStream under modeltape run, re-signed, and replays offline with no credentials or region',
  app: APP,
  // ChatBedrockConverse refuses to start without AWS_DEFAULT_REGION: in replay modeltape run sets it with the placeholders.
  region: 'AWS_DEFAULT_REGION',
  replayEnv: { AWS_PROFILE: 'modeltape-no-such-profile' },
  // The AWS SDK's encoding of the model id, as BedrockRuntimeClient's own: the tapes key alike.
  paths: ['/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/converse', '/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/converse-stream'],
  checkLive(live) {
    expect(String(live.answer).length).toBeGreaterThan(0);
    expect(String(live.text).length).toBeGreaterThan(0);
  },
  difference: 'at .messages[0].content[0].text: recorded "Say hello" sent "Say goodbye"',
});
