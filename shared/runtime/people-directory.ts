import { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { CognitoPeopleDirectory } from '../adapters/people/cognito-people-directory.ts';
import { CLIENT_OPTIONS } from './client-options.ts';
import { ENV } from './environment.ts';

let directory: CognitoPeopleDirectory | undefined;

/**
 * The container's one view of the console's user pool, created on first use; only the people
 * functions import it. Throws naming the variable when the stack set no pool.
 */
export function peopleDirectory(env: NodeJS.ProcessEnv = process.env): CognitoPeopleDirectory {
  const userPoolId = env[ENV.userPoolId];
  if (!userPoolId)
    throw new Error(`Environment variable ${ENV.userPoolId} (the console's user pool) is not set`);
  directory ??= new CognitoPeopleDirectory(
    new CognitoIdentityProviderClient(CLIENT_OPTIONS),
    userPoolId,
  );
  return directory;
}
