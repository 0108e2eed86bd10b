/**
 * Stands in for `@aws-sdk/credential-provider-node` in the function bundles (an esbuild alias
 * in FUNCTION_BUNDLING). Lambda always hands a function its role's credentials in the
 * environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN), the first source
 * the default chain tries; the rest of the chain (SSO, ini files, web identity, container and
 * instance metadata, and the STS and SSO clients they nest) would be dead weight: about 140 KB
 * and 15 ms of every cold start (docs/benchmarks.md). The local cloud runs these same bundles
 * with environment credentials, so the alias is tested as deployed.
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';

/** The name and call shape every client's runtime configuration calls. */
export const defaultProvider = (init?: Parameters<typeof fromEnv>[0]) => fromEnv(init);
