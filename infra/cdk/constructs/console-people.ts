import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import {
  AccountRecovery,
  FeaturePlan,
  Mfa,
  UserPool,
  type UserPoolClient,
} from 'aws-cdk-lib/aws-cognito';
import { Construct } from 'constructs';
import { PERSON_ROLES } from '../../../shared/domain/person.ts';

/** Options of the console's user pool. */
export interface ConsolePeopleProps {
  /** Keep the pool (and everyone in it) when the stack is deleted. */
  readonly retain: boolean;
}

/** How long a console session lasts: its ID token, and the refresh token that renews it. */
export const CONSOLE_SESSION = { idTokenHours: 1, refreshTokenHours: 12 } as const;

/**
 * The people who run the newsletter: an Amazon Cognito user pool where only the operator adds
 * people (`npx newsletter people add`), each in the group of their role, signing in with their
 * address and a password of their own (set at first sign-in), optionally with a TOTP app, and
 * resetting a forgotten password by e-mail. The console's app client signs in with
 * USER_PASSWORD_AUTH (no hosted UI, no secret: it runs in the browser); its ID token lasts an
 * hour and its refresh token twelve, so a session ends within a working day.
 */
export class ConsolePeople extends Construct {
  readonly userPool: UserPool;
  readonly client: UserPoolClient;

  constructor(scope: Construct, id: string, props: ConsolePeopleProps) {
    super(scope, id);
    this.userPool = new UserPool(this, 'Pool', {
      selfSignUpEnabled: false,
      signInAliases: { email: true },
      autoVerify: { email: true },
      signInCaseSensitive: false,
      mfa: Mfa.OPTIONAL,
      mfaSecondFactor: { sms: false, otp: true },
      accountRecovery: AccountRecovery.EMAIL_ONLY,
      featurePlan: FeaturePlan.ESSENTIALS,
      passwordPolicy: {
        minLength: 12,
        requireLowercase: true,
        requireUppercase: true,
        requireDigits: true,
        requireSymbols: true,
        // The temporary password `people add` shows is good for three days.
        tempPasswordValidity: Duration.days(3),
      },
      removalPolicy: props.retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
      deletionProtection: props.retain,
    });
    for (const role of PERSON_ROLES) {
      this.userPool.addGroup(role === 'admin' ? 'Admins' : 'Editors', {
        groupName: role,
        description:
          role === 'admin'
            ? 'Console: issues, reports, subscribers, lists, settings and people'
            : 'Console: issues and reports',
      });
    }
    this.client = this.userPool.addClient('Console', {
      authFlows: { userPassword: true },
      generateSecret: false,
      idTokenValidity: Duration.hours(CONSOLE_SESSION.idTokenHours),
      accessTokenValidity: Duration.hours(CONSOLE_SESSION.idTokenHours),
      refreshTokenValidity: Duration.hours(CONSOLE_SESSION.refreshTokenHours),
      preventUserExistenceErrors: true,
      enableTokenRevocation: true,
    });
    Validations.of(this.userPool).acknowledge(
      {
        id: 'AwsSolutions-COG2',
        reason:
          'MFA is optional by design (the issue asks for optional TOTP): each person may add a ' +
          'TOTP app at sign-in. Only the operator creates accounts (no self sign-up), and ' +
          'sessions end after 12 hours at most.',
      },
      {
        id: 'AwsSolutions-COG8',
        reason:
          "Cognito's threat protection (advanced security) needs the Plus feature plan, billed " +
          'per person; this pool holds a handful of people the operator adds by hand, with a ' +
          '12-character password policy and optional TOTP.',
      },
    );
  }
}
