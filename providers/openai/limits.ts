/** The tool names and count OpenAI's APIs accept (Chat Completions and Responses alike). */
export const OPENAI_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
export const OPENAI_MAX_TOOLS = 128;
