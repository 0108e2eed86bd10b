import {
  AdminAddUserToGroupCommand,
  AdminCreateUserCommand,
  AdminSetUserPasswordCommand,
  CognitoIdentityProviderClient,
} from '@aws-sdk/client-cognito-identity-provider';
import type { LocalStack } from '../../infra/local/local-stack.ts';

/**
 * Makes `email` an admin of the stack's console pool with `password` as their own, and signs
 * them in as the console does (USER_PASSWORD_AUTH, no credentials): their ID token.
 */
export function adminIdToken(
  stack: Pick<LocalStack, 'cognito' | 'people'>,
  email: string,
  password: string,
): Promise<string> {
  return personIdToken(stack, email, password, 'admin');
}

/** As adminIdToken, for a person of either role ([console.roles]). */
export async function personIdToken(
  stack: Pick<LocalStack, 'cognito' | 'people'>,
  email: string,
  password: string,
  role: 'admin' | 'editor',
): Promise<string> {
  const cognito = new CognitoIdentityProviderClient({
    endpoint: stack.cognito.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'operator', secretAccessKey: 'local' },
  });
  const UserPoolId = stack.people.userPoolId;
  try {
    await cognito.send(
      new AdminCreateUserCommand({
        UserPoolId,
        Username: email,
        MessageAction: 'SUPPRESS',
        UserAttributes: [{ Name: 'email', Value: email }],
      }),
    );
    await cognito.send(
      new AdminSetUserPasswordCommand({
        UserPoolId,
        Username: email,
        Password: password,
        Permanent: true,
      }),
    );
    await cognito.send(
      new AdminAddUserToGroupCommand({ UserPoolId, Username: email, GroupName: role }),
    );
  } finally {
    cognito.destroy();
  }
  const response = await fetch(stack.cognito.endpoint, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-amz-json-1.1',
      'X-Amz-Target': 'AWSCognitoIdentityProviderService.InitiateAuth',
    },
    body: JSON.stringify({
      AuthFlow: 'USER_PASSWORD_AUTH',
      ClientId: stack.people.clientId,
      AuthParameters: { USERNAME: email, PASSWORD: password },
    }),
  });
  const answer = (await response.json()) as { AuthenticationResult?: { IdToken?: string } };
  const token = answer.AuthenticationResult?.IdToken;
  if (!token) throw new Error(`no sign-in for ${email}: ${JSON.stringify(answer)}`);
  return token;
}
