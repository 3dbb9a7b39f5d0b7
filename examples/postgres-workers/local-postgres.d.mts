/** The folder holding initdb and pg_ctl, or undefined when this machine has none. */
export function postgresBin(env?: NodeJS.ProcessEnv): string | undefined;
/** Starts a server from the binaries in `bin`; resolves with its URL and how to stop it. */
export function startLocalPostgres(bin: string): Promise<{ url: string; stop(): Promise<void> }>;
