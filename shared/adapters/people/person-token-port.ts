/** What a verified Cognito ID token says of its person. */
export interface VerifiedPersonToken {
  /** The person's address (the `email` claim). */
  readonly email: string;
  /** Their groups (`cognito:groups`); empty for a person in none. */
  readonly groups: readonly string[];
}

/**
 * Checks a bearer token: `undefined` when it is not a valid ID token of the console's pool and
 * client (bad signature, another pool, another client, expired, not an ID token). Throws
 * DependencyError('cognito') when the pool's keys cannot be fetched.
 */
export interface PersonTokenVerifier {
  verify(token: string): Promise<VerifiedPersonToken | undefined>;
}
