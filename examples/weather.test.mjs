// The example's test suite, with node:test: the tool call the agent made and the answer it gave.
// It checks the text of the answer, not why the model stopped; `modeltape mutate` shows that:
//   npx modeltape run --tape examples/tapes/weather.jsonl -- node --test examples/weather.test.mjs
//   npx modeltape mutate --tape examples/tapes/weather.jsonl -- node --test examples/weather.test.mjs
import assert from 'node:assert/strict';
import { test } from 'node:test';
import OpenAI from 'openai';
import { askForWeather } from './weather.mjs';

test('the agent calls get_weather for Paris and answers with what the tool returned', async () => {
  const result = await askForWeather(new OpenAI({ maxRetries: 0 }));
  assert.deepEqual(result.toolCall, { name: 'get_weather', arguments: { city: 'Paris' } });
  assert.equal(result.answer, 'It is 14°C with light rain in Paris.');
});
