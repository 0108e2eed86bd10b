import {
  AdminAddUserToGroupCommand,
  AdminCreateUserCommand,
  AdminDeleteUserCommand,
  type CognitoIdentityProviderClient,
  ListUsersCommand,
  ListUsersInGroupCommand,
  UserNotFoundException,
  UsernameExistsException,
  type UserType,
} from '@aws-sdk/client-cognito-identity-provider';
import { DependencyError } from '../../domain/errors.ts';
import { PERSON_ROLES, type PersonEntry, type PersonRole } from '../../domain/person.ts';
import type { PeopleDirectory } from './people-directory-port.ts';

/**
 * The console's user pool through Cognito's admin API. The calls, and so the grants
 * (functions/routes.ts): AdminCreateUser and AdminAddUserToGroup to add, AdminDeleteUser to
 * remove, ListUsers and ListUsersInGroup to list. The pool signs in by address, so the address
 * is the username every admin call names.
 */
export class CognitoPeopleDirectory implements PeopleDirectory {
  constructor(
    private readonly client: CognitoIdentityProviderClient,
    private readonly userPoolId: string,
  ) {}

  async add(email: string, role: PersonRole, temporaryPassword: string): Promise<boolean> {
    try {
      await this.#call(() =>
        this.client.send(
          new AdminCreateUserCommand({
            UserPoolId: this.userPoolId,
            Username: email,
            TemporaryPassword: temporaryPassword,
            // The password is shown to the admin who adds them, once; Cognito sends no mail.
            MessageAction: 'SUPPRESS',
            UserAttributes: [
              { Name: 'email', Value: email },
              // The admin vouches for the address: password reset mails go there.
              { Name: 'email_verified', Value: 'true' },
            ],
          }),
        ),
      );
    } catch (error) {
      if (error instanceof UsernameExistsException) return false;
      throw error;
    }
    await this.#call(() =>
      this.client.send(
        new AdminAddUserToGroupCommand({
          UserPoolId: this.userPoolId,
          Username: email,
          GroupName: role,
        }),
      ),
    );
    return true;
  }

  async remove(email: string): Promise<boolean> {
    try {
      await this.#call(() =>
        this.client.send(
          new AdminDeleteUserCommand({ UserPoolId: this.userPoolId, Username: email }),
        ),
      );
      return true;
    } catch (error) {
      if (error instanceof UserNotFoundException) return false;
      throw error;
    }
  }

  async list(): Promise<PersonEntry[]> {
    const roles = new Map<string, PersonRole>();
    // Least role first, so an admin who is also in `editor` is listed as admin.
    for (const role of PERSON_ROLES) {
      const members = await this.#all(async (token) => {
        const page = await this.client.send(
          new ListUsersInGroupCommand({
            UserPoolId: this.userPoolId,
            GroupName: role,
            NextToken: token,
          }),
        );
        return { users: page.Users ?? [], next: page.NextToken };
      });
      for (const user of members) roles.set(user.Username ?? '', role);
    }
    const users = await this.#all(async (token) => {
      const page = await this.client.send(
        new ListUsersCommand({ UserPoolId: this.userPoolId, PaginationToken: token }),
      );
      return { users: page.Users ?? [], next: page.PaginationToken };
    });
    return users
      .map((user) => ({
        email: user.Attributes?.find((attribute) => attribute.Name === 'email')?.Value ?? '',
        role: roles.get(user.Username ?? '') ?? ('none' as const),
        status: user.UserStatus ?? 'UNKNOWN',
        created: (user.UserCreateDate ?? new Date(0)).toISOString(),
      }))
      .sort((a, b) => a.email.localeCompare(b.email));
  }

  /** Every page of a listing. */
  async #all(
    page: (token: string | undefined) => Promise<{ users: UserType[]; next?: string | undefined }>,
  ): Promise<UserType[]> {
    const users: UserType[] = [];
    let token: string | undefined;
    do {
      const { users: some, next } = await this.#call(() => page(token));
      users.push(...some);
      token = next;
    } while (token);
    return users;
  }

  /** A call; Cognito out of reach (not a refusal of the call) is a DependencyError. */
  async #call<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata
        ?.httpStatusCode;
      if (status === undefined || status >= 500 || (error as Error).name === 'TimeoutError')
        throw new DependencyError('cognito', { cause: error });
      throw error;
    }
  }
}
