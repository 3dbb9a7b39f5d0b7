// The tiny protocol between bench/run.mjs and a server child:
// child -> parent { type: 'ready', port }, parent -> child { type: 'stop' },
// child -> parent { type: 'stopped', summary } and then the child exits (flushing a --cpu-prof).

/** Reports readiness and waits for `stop`; `stop()` returns an optional summary. */
export function serveUntilStopped(port, stop) {
  process.send({ type: 'ready', port });
  let stopping = false;
  const finish = async () => {
    if (stopping) return;
    stopping = true;
    let summary;
    try {
      summary = await stop();
    } catch (error) {
      summary = { error: String(error?.stack ?? error) };
    }
    if (process.connected) process.send({ type: 'stopped', summary }, () => process.exit(0));
    else process.exit(0);
  };
  process.on('message', (message) => {
    if (message?.type === 'stop') void finish();
  });
  // The parent went away (crash, Ctrl-C): never outlive it.
  process.on('disconnect', () => process.exit(0));
  process.on('SIGTERM', () => process.exit(0));
}
