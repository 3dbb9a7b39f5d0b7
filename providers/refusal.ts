/** What decides the refusals beyond a provider's fixed rules. */
export interface RefusalOptions {
  /** Check response schemas and strict tool schemas against strict mode. */
  constrained: boolean;
  /**
   * `bedrock` refuses an Anthropic conversation whose first message is not from the user, as
   * Amazon Bedrock does; Anthropic's own API accepts it (since late 2024).
   */
  anthropicPlatform: 'anthropic' | 'bedrock';
}
