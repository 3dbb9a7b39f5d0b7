// A small agent turn with the official `openai` package and one tool: ask for the weather, run
// the tool the model asks for, stream the final answer.
//
// Run it offline against the committed tape (no key, no network):
//   npx modeltape run --tape examples/tapes/weather.jsonl -- node examples/weather.mjs
// `modeltape run` points OPENAI_BASE_URL at its proxy; nothing here knows about modeltape.
import { pathToFileURL } from 'node:url';
import OpenAI from 'openai';

export const tools = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Current weather for a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
      strict: true,
    },
  },
];

/** The tool itself: local and deterministic, so only the model's side is recorded. */
export function getWeather({ city }) {
  return { city, temperature_c: 14, conditions: 'light rain' };
}

/** One tool-using turn. Returns the tool call the model made and its final answer. */
export async function askForWeather(client, city = 'Paris', onText = () => {}) {
  const messages = [
    { role: 'system', content: 'You are a concise weather assistant. Use the tool.' },
    { role: 'user', content: `What's the weather in ${city}?` },
  ];
  const first = await client.chat.completions.create({ model: 'gpt-4.1-mini', messages, tools });
  const assistant = first.choices[0].message;
  const call = assistant.tool_calls?.[0];
  if (!call) throw new Error(`expected a tool call, got: ${assistant.content}`);
  messages.push(assistant);
  messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(getWeather(JSON.parse(call.function.arguments))) });

  const stream = client.chat.completions.stream({ model: 'gpt-4.1-mini', messages, stream_options: { include_usage: true } });
  stream.on('content', onText);
  const final = await stream.finalChatCompletion();
  return {
    toolCall: { name: call.function.name, arguments: JSON.parse(call.function.arguments) },
    answer: final.choices[0].message.content,
    usage: final.usage,
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const client = new OpenAI({ maxRetries: 0 });
  process.stdout.write('answer: ');
  const result = await askForWeather(client, 'Paris', (text) => process.stdout.write(text));
  process.stdout.write('\n');
  console.log(`tool call: ${result.toolCall.name}(${JSON.stringify(result.toolCall.arguments)})`);
  console.log(`usage: ${result.usage.prompt_tokens} prompt + ${result.usage.completion_tokens} completion tokens`);
}
