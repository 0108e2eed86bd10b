import { JwtVerifier } from 'aws-jwt-verify';
import { FetchError } from 'aws-jwt-verify/error';
import { SimpleJwksCache } from 'aws-jwt-verify/jwk';
import { DependencyError } from '../../domain/errors.ts';
import type { PersonTokenVerifier, VerifiedPersonToken } from './person-token-port.ts';

/** Where a pool's ID tokens come from: the pool, its app client, and the issuer's domain. */
export interface CognitoPool {
  readonly userPoolId: string;
  readonly clientId: string;
  /** `https://cognito-idp.{region}.amazonaws.com` on AWS; the stand-in's URL locally. */
  readonly issuerDomain: string;
}

/** Longest wait for the pool's keys: a function answers 503 rather than time out. */
const JWKS_TIMEOUT_MS = 3000;

/**
 * Fetches the JWKS with the platform's `fetch`, which speaks HTTP as well as HTTPS: the
 * library's own fetcher is HTTPS only, and the local Cognito stand-in serves its keys over
 * plain HTTP on loopback. On AWS the issuer, and so the JWKS address, is Cognito's HTTPS one.
 */
const platformFetcher = {
  async fetch(uri: string): Promise<ArrayBuffer> {
    const response = await fetch(uri, { signal: AbortSignal.timeout(JWKS_TIMEOUT_MS) });
    if (response.status !== 200)
      throw new FetchError(uri, `Status code is ${response.status}, expected 200`);
    return response.arrayBuffer();
  },
};

/**
 * Verifies the console's Cognito ID tokens with `aws-jwt-verify` (RS256 signature against the
 * pool's JWKS, issuer, audience = the console's client, expiry, `token_use` = `id`). The JWKS
 * is fetched once per container and kept (again only for a key id it has not seen, as Cognito
 * rotates keys), so a request costs no call to DynamoDB, SSM or Cognito ([console.token]).
 * `aws-jwt-verify` rather than our own code: it is AWS's, kept for exactly this, and checks
 * what is easy to forget (the algorithm, the key's use, `nbf`).
 */
export class CognitoTokenVerifier implements PersonTokenVerifier {
  readonly #verifier;

  constructor(pool: CognitoPool) {
    const issuer = `${pool.issuerDomain.replace(/\/+$/, '')}/${pool.userPoolId}`;
    this.#verifier = JwtVerifier.create(
      {
        issuer,
        audience: pool.clientId,
        jwksUri: `${issuer}/.well-known/jwks.json`,
        customJwtCheck: ({ payload }) => {
          if (payload.token_use !== 'id') throw new Error('not an ID token');
        },
      },
      { jwksCache: new SimpleJwksCache({ fetcher: platformFetcher }) },
    );
  }

  async verify(token: string): Promise<VerifiedPersonToken | undefined> {
    try {
      const payload = await this.#verifier.verify(token);
      const groups = payload['cognito:groups'];
      const email = payload.email;
      if (typeof email !== 'string') return undefined;
      return {
        email: email.toLowerCase(),
        groups: Array.isArray(groups) ? groups.filter((g) => typeof g === 'string') : [],
      };
    } catch (error) {
      if (error instanceof FetchError) throw new DependencyError('cognito', { cause: error });
      // Any other failure is a token that does not pass: refused, never let through.
      return undefined;
    }
  }
}
