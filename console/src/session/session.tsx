/**
 * The signed-in person, their tokens (in memory only: a reload signs out) and the API client
 * that uses them.
 */
import { type ComponentChildren, createContext } from 'preact';
import { useContext, useMemo, useRef, useState } from 'preact/hooks';
import { type Api, makeApi } from '../api.ts';
import type { ConsoleConfig } from '../config.ts';
import { type Person, personOf, refresh, type Tokens } from './cognito.ts';

/** Refresh the ID token when it has less than this left. */
const REFRESH_BEFORE_MS = 5 * 60_000;

/** What every page can reach. */
export interface SessionValue {
  readonly config: ConsoleConfig;
  /** Undefined while signed out. */
  readonly person: Person | undefined;
  readonly api: Api;
  /** Why the last session ended, when it ended by itself. */
  readonly ended: string | undefined;
  signedIn(tokens: Tokens): void;
  signOut(reason?: string): void;
}

const SessionContext = createContext<SessionValue | undefined>(undefined);

/** The session of the console's pages. */
export function useSession(): SessionValue {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside SessionProvider');
  return session;
}

/** Holds the session; pages below it call the API as the signed-in person. */
export function SessionProvider(props: { config: ConsoleConfig; children: ComponentChildren }) {
  const { config } = props;
  const tokens = useRef<Tokens | undefined>(undefined);
  const refreshing = useRef<Promise<Tokens> | undefined>(undefined);
  const [person, setPerson] = useState<Person | undefined>(undefined);
  const [ended, setEnded] = useState<string | undefined>(undefined);

  const value = useMemo<SessionValue>(() => {
    const signOut = (reason?: string) => {
      tokens.current = undefined;
      setEnded(reason);
      setPerson(undefined);
    };
    const token = async (): Promise<string> => {
      const now = tokens.current;
      if (!now) throw new Error('Signed out: sign in again.');
      if (now.expiresAt - Date.now() > REFRESH_BEFORE_MS || !now.refreshToken) return now.idToken;
      refreshing.current ??= refresh(config, now.refreshToken).finally(() => {
        refreshing.current = undefined;
      });
      try {
        tokens.current = await refreshing.current;
      } catch {
        signOut('Your session ended (sessions last 12 hours): sign in again.');
        throw new Error('Your session ended: sign in again.');
      }
      return tokens.current.idToken;
    };
    return {
      config,
      person,
      ended,
      api: makeApi(config.apiBase, token, () =>
        signOut('The API no longer accepts your session: sign in again.'),
      ),
      signedIn(next: Tokens) {
        tokens.current = next;
        setEnded(undefined);
        setPerson(personOf(next.idToken));
      },
      signOut,
    };
  }, [config, person, ended]);

  return <SessionContext.Provider value={value}>{props.children}</SessionContext.Provider>;
}
