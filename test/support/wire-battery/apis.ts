// Every wire API the wire battery checks (test/support/wire-conformance.ts), one entry each, and
// one more for each API Azure OpenAI or Vertex AI serves at routes of its own.
import type { WireApiUnderTest } from '../wire-conformance.js';
import { anthropicModels, countTokens, messages } from './anthropic.js';
import { azureChat, azureConversations, azureEmbeddings, azureModels, azureResponses, azureResponsesStored } from './azure.js';
import { converse, invoke } from './bedrock.js';
import { generate, geminiCountTokens, geminiEmbed, geminiModels } from './gemini.js';
import { ollamaChat, ollamaEmbed, ollamaGenerate, ollamaModels, ollamaTags } from './ollama.js';
import { chat, conversations, embeddings, models, responses, responsesStored } from './openai.js';
import { vertexAnthropicCountTokens, vertexCountTokens, vertexGenerate, vertexMessages } from './vertex.js';

export const WIRE_APIS_UNDER_TEST: readonly WireApiUnderTest[] = [
  chat,
  responses,
  responsesStored,
  conversations,
  messages,
  embeddings,
  models,
  countTokens,
  anthropicModels,
  generate,
  geminiCountTokens,
  geminiEmbed,
  geminiModels,
  ollamaChat,
  ollamaGenerate,
  ollamaEmbed,
  ollamaTags,
  ollamaModels,
  converse,
  invoke,
  azureChat,
  azureResponses,
  azureEmbeddings,
  azureModels,
  azureResponsesStored,
  azureConversations,
  vertexGenerate,
  vertexCountTokens,
  vertexMessages,
  vertexAnthropicCountTokens,
];
