/**
 * Cognito's JSON API, called straight from the browser (no SDK: the five calls the console
 * makes are one POST each, and the SDK would be most of the bundle).
 */
import type { ConsoleConfig } from '../config.ts';

/** Tokens of a signed-in person; kept in memory only, never in storage or an address. */
export interface Tokens {
  readonly idToken: string;
  /** Absent after a refresh: Cognito does not rotate it, the old one stays valid. */
  readonly refreshToken?: string;
  /** Epoch milliseconds. */
  readonly expiresAt: number;
}

/** A step Cognito asks for before it gives tokens. */
export interface Challenge {
  readonly name: 'NEW_PASSWORD_REQUIRED' | 'SOFTWARE_TOKEN_MFA' | string;
  readonly session: string;
  readonly username: string;
}

/** What a sign-in step ends in: tokens, or another challenge. */
export type SignInStep = { readonly tokens: Tokens } | { readonly challenge: Challenge };

/** Cognito's refusal, with its exception name (`NotAuthorizedException`, …). */
export class CognitoError extends Error {
  override readonly name = 'CognitoError';
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

interface AuthAnswer {
  readonly AuthenticationResult?: {
    readonly IdToken: string;
    readonly RefreshToken?: string;
    readonly ExpiresIn: number;
  };
  readonly ChallengeName?: string;
  readonly Session?: string;
  readonly ChallengeParameters?: Record<string, string>;
}

/** Calls one Cognito action. */
async function call<T>(config: ConsoleConfig, action: string, body: object): Promise<T> {
  let answer: Response;
  try {
    answer = await fetch(config.cognito.endpoint, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-amz-json-1.1',
        'X-Amz-Target': `AWSCognitoIdentityProviderService.${action}`,
      },
      body: JSON.stringify(body),
    });
  } catch {
    throw new CognitoError(
      'NetworkError',
      'The sign-in service could not be reached: check your connection and try again.',
    );
  }
  const json = (await answer.json().catch(() => ({}))) as Record<string, unknown>;
  if (!answer.ok) {
    const type = String(json.__type ?? 'Error').replace(/^.*#/, '');
    const message = String(json.message ?? json.Message ?? `Sign-in failed (${answer.status}).`);
    throw new CognitoError(type, message);
  }
  return json as T;
}

function stepOf(answer: AuthAnswer, username: string): SignInStep {
  const result = answer.AuthenticationResult;
  if (result) {
    return {
      tokens: {
        idToken: result.IdToken,
        ...(result.RefreshToken ? { refreshToken: result.RefreshToken } : {}),
        expiresAt: Date.now() + result.ExpiresIn * 1000,
      },
    };
  }
  return {
    challenge: {
      name: answer.ChallengeName ?? 'UNKNOWN',
      session: answer.Session ?? '',
      // Cognito names the user by its own id in challenges; that name must come back.
      username: answer.ChallengeParameters?.USER_ID_FOR_SRP ?? username,
    },
  };
}

/** Address and password (`USER_PASSWORD_AUTH`). */
export async function signIn(
  config: ConsoleConfig,
  username: string,
  password: string,
): Promise<SignInStep> {
  const answer = await call<AuthAnswer>(config, 'InitiateAuth', {
    AuthFlow: 'USER_PASSWORD_AUTH',
    ClientId: config.cognito.clientId,
    AuthParameters: { USERNAME: username, PASSWORD: password },
  });
  return stepOf(answer, username);
}

/** Answers a challenge: the new password, or the authenticator app's code. */
export async function answerChallenge(
  config: ConsoleConfig,
  challenge: Challenge,
  value: string,
): Promise<SignInStep> {
  const responses =
    challenge.name === 'NEW_PASSWORD_REQUIRED'
      ? { USERNAME: challenge.username, NEW_PASSWORD: value }
      : { USERNAME: challenge.username, SOFTWARE_TOKEN_MFA_CODE: value };
  const answer = await call<AuthAnswer>(config, 'RespondToAuthChallenge', {
    ChallengeName: challenge.name,
    ClientId: config.cognito.clientId,
    Session: challenge.session,
    ChallengeResponses: responses,
  });
  return stepOf(answer, challenge.username);
}

/** New tokens from the refresh token (valid 12 hours). */
export async function refresh(config: ConsoleConfig, refreshToken: string): Promise<Tokens> {
  const answer = await call<AuthAnswer>(config, 'InitiateAuth', {
    AuthFlow: 'REFRESH_TOKEN_AUTH',
    ClientId: config.cognito.clientId,
    AuthParameters: { REFRESH_TOKEN: refreshToken },
  });
  const step = stepOf(answer, '');
  if (!('tokens' in step)) throw new CognitoError('NotAuthorizedException', 'Sign in again.');
  return { ...step.tokens, refreshToken: step.tokens.refreshToken ?? refreshToken };
}

/** Sends a reset code to the person's address. */
export async function forgotPassword(config: ConsoleConfig, username: string): Promise<void> {
  await call(config, 'ForgotPassword', { ClientId: config.cognito.clientId, Username: username });
}

/** Sets a new password with the code from the mail. */
export async function confirmForgotPassword(
  config: ConsoleConfig,
  username: string,
  code: string,
  password: string,
): Promise<void> {
  await call(config, 'ConfirmForgotPassword', {
    ClientId: config.cognito.clientId,
    Username: username,
    ConfirmationCode: code,
    Password: password,
  });
}

/** Who an ID token names and their role (the `cognito:groups` claim). */
export interface Person {
  readonly email: string;
  readonly role: 'admin' | 'editor' | 'none';
}

/** Reads (does not verify: the API does) the person an ID token names. */
export function personOf(idToken: string): Person {
  const payload = idToken.split('.')[1] ?? '';
  const json = atob(payload.replace(/-/g, '+').replace(/_/g, '/'));
  const bytes = Uint8Array.from(json, (c) => c.charCodeAt(0));
  const claims = JSON.parse(new TextDecoder().decode(bytes)) as Record<string, unknown>;
  const groups = Array.isArray(claims['cognito:groups']) ? claims['cognito:groups'] : [];
  const role = groups.includes('admin') ? 'admin' : groups.includes('editor') ? 'editor' : 'none';
  const email = String(claims.email ?? claims['cognito:username'] ?? '');
  return { email, role };
}
