/**
 * The console's user pool in the template ([console.sign-in], [console.roles]): only the
 * operator adds people, they sign in by address, optional TOTP, e-mail recovery, the two groups
 * that are the roles, and an app client for the browser whose tokens end a session in 12 hours.
 */
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { buildApp, resourcesOfType } from './build-app.ts';

const { template, stack } = buildApp();

describe('the console user pool', () => {
  it('takes only people the operator adds, by address, with optional TOTP and e-mail recovery', () => {
    template.resourceCountIs('AWS::Cognito::UserPool', 1);
    template.hasResourceProperties('AWS::Cognito::UserPool', {
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
      UsernameAttributes: ['email'],
      AutoVerifiedAttributes: ['email'],
      MfaConfiguration: 'OPTIONAL',
      EnabledMfas: ['SOFTWARE_TOKEN_MFA'],
      AccountRecoverySetting: {
        RecoveryMechanisms: [{ Name: 'verified_email', Priority: 1 }],
      },
      Policies: {
        PasswordPolicy: Match.objectLike({
          MinimumLength: 12,
          RequireLowercase: true,
          RequireUppercase: true,
          RequireNumbers: true,
          RequireSymbols: true,
          TemporaryPasswordValidityDays: 3,
        }),
      },
    });
    // Kept with everyone in it, as the table is, unless -c retain=false.
    template.hasResource('AWS::Cognito::UserPool', { DeletionPolicy: 'Retain' });
  });

  it('has the two roles as groups', () => {
    const groups = [...resourcesOfType(template, 'AWS::Cognito::UserPoolGroup').values()].map(
      (group) => group.Properties.GroupName,
    );
    expect(groups.sort()).toEqual(['admin', 'editor']);
  });

  it('signs the browser in with USER_PASSWORD_AUTH, no secret, ID token 1 h, refresh 12 h', () => {
    template.resourceCountIs('AWS::Cognito::UserPoolClient', 1);
    template.hasResourceProperties('AWS::Cognito::UserPoolClient', {
      ExplicitAuthFlows: ['ALLOW_USER_PASSWORD_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH'],
      GenerateSecret: false,
      IdTokenValidity: 60,
      AccessTokenValidity: 60,
      RefreshTokenValidity: 720,
      TokenValidityUnits: { IdToken: 'minutes', AccessToken: 'minutes', RefreshToken: 'minutes' },
      PreventUserExistenceErrors: 'ENABLED',
      EnableTokenRevocation: true,
    });
    expect(stack.people.client).toBeDefined();
  });
});
