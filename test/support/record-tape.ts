import { startProxy, type ProxyOptions } from 'modeltape/proxy';
import { startStandInUpstream, type ReceivedRequest, type StandInReply } from './stand-in-upstream.js';

/**
 * Records a tape by running `exercise` against a proxy in record mode in front of a stand-in
 * upstream, then shuts both down. Returns what the exercise returned.
 */
export async function recordTape<T>(
  tape: string,
  exercise: (baseUrls: { openai: string; anthropic: string; url: string }) => Promise<T>,
  options: { reply?: (request: ReceivedRequest) => StandInReply; proxy?: Partial<ProxyOptions> } = {},
): Promise<T> {
  const standIn = await startStandInUpstream(options.reply);
  const proxy = await startProxy({
    tape,
    mode: 'record',
    allowRecordInCi: true,
    upstreams: { openai: standIn.url, anthropic: standIn.url },
    ...options.proxy,
  });
  try {
    return await exercise({ ...proxy.baseUrls, url: proxy.url });
  } finally {
    await proxy.close();
    await standIn.close();
  }
}
