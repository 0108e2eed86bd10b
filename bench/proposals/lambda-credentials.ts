/**
 * Proposal (bundling alias for `@aws-sdk/credential-provider-node`): on Lambda the role's
 * credentials are always in the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
 * AWS_SESSION_TOKEN), the first source the default chain tries, so the rest of the chain (SSO,
 * ini files, STS web identity, ECS/IMDS, their nested clients) is dead weight in a bundle.
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';

/** Same name and call shape as the default chain, which every client's runtime config calls. */
export const defaultProvider = (init?: Parameters<typeof fromEnv>[0]) => fromEnv(init);
