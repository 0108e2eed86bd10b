/** What `GET /config.json` on the console's origin tells the console (the console's contract). */
export interface ConsoleConfig {
  /** The API's v2 root on the same origin, e.g. `/prod/newsletter/v2`. */
  readonly apiBase: string;
  readonly cognito: {
    /** Where the browser POSTs Cognito's JSON API. */
    readonly endpoint: string;
    readonly region: string;
    readonly userPoolId: string;
    readonly clientId: string;
  };
}

/** Reads the console's configuration; throws with what to do when the origin has none. */
export async function loadConfig(): Promise<ConsoleConfig> {
  const answer = await fetch('/config.json', { cache: 'no-store' });
  if (!answer.ok) {
    throw new Error(
      `/config.json answered ${answer.status}: the console is not set up on this address (deploy the stack, or run npm start).`,
    );
  }
  return (await answer.json()) as ConsoleConfig;
}
