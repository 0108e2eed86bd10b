/**
 * Sign-in: address and password, then what Cognito asks for (a new password on the first
 * sign-in with a temporary one, the authenticator app's code when the person has MFA), and
 * a forgotten password reset by a mailed code.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import {
  answerChallenge,
  type Challenge,
  CognitoError,
  confirmForgotPassword,
  forgotPassword,
  type SignInStep,
  signIn,
} from '../session/cognito.ts';
import { useSession } from '../session/session.tsx';
import { Busy } from '../ui/feedback.tsx';

type Stage =
  | { readonly kind: 'password' }
  | { readonly kind: 'challenge'; readonly challenge: Challenge }
  | { readonly kind: 'forgot' }
  | { readonly kind: 'reset'; readonly email: string };

/** What to do after each of Cognito's refusals. */
function adviceOf(error: unknown): string {
  if (!(error instanceof CognitoError)) return 'Reload the page and try again.';
  switch (error.type) {
    case 'NotAuthorizedException':
      return 'Check the address and password. After too many tries, wait a few minutes.';
    case 'UserNotFoundException':
      return 'Check the address, or ask an admin to add you.';
    case 'CodeMismatchException':
    case 'ExpiredCodeException':
      return 'Check the code, or ask for a new one.';
    case 'InvalidPasswordException':
      return 'Choose a longer password with upper and lower case letters, digits and a symbol.';
    case 'LimitExceededException':
    case 'TooManyRequestsException':
      return 'Too many attempts: wait a few minutes, then try again.';
    default:
      return 'Try again; if it keeps failing, ask an admin.';
  }
}

/** The sign-in page, shown to anyone not signed in. */
export function SignIn() {
  const session = useSession();
  const { config } = session;
  const [stage, setStage] = useState<Stage>({ kind: 'password' });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const [notice, setNotice] = useState<string | undefined>(session.ended);
  const heading = useRef<HTMLHeadingElement>(null);

  useEffect(() => {
    document.title = 'Sign in · Newsletter console';
    heading.current?.focus();
  }, [stage.kind]);

  async function run(step: () => Promise<SignInStep | undefined>) {
    setBusy(true);
    setError(undefined);
    try {
      const next = await step();
      if (next && 'tokens' in next) session.signedIn(next.tokens);
      else if (next) setStage({ kind: 'challenge', challenge: next.challenge });
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }

  const field = (form: HTMLFormElement, name: string) =>
    (form.elements.namedItem(name) as HTMLInputElement).value;

  const title =
    stage.kind === 'challenge'
      ? stage.challenge.name === 'NEW_PASSWORD_REQUIRED'
        ? 'Choose your password'
        : 'Enter your authenticator code'
      : stage.kind === 'password'
        ? 'Sign in'
        : 'Reset your password';

  return (
    <main id="main" class="narrow">
      <h1 tabIndex={-1} ref={heading}>
        {title}
      </h1>
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      {stage.kind === 'password' && (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            const form = event.currentTarget;
            void run(() => signIn(config, field(form, 'email'), field(form, 'password')));
          }}
        >
          <label for="email">Email address</label>
          <input id="email" name="email" type="email" autocomplete="username" required />
          <label for="password">Password</label>
          <input
            id="password"
            name="password"
            type="password"
            autocomplete="current-password"
            required
          />
          <button type="submit" disabled={busy}>
            Sign in
          </button>
          <p>
            <button
              type="button"
              class="link"
              onClick={() => {
                setError(undefined);
                setNotice(undefined);
                setStage({ kind: 'forgot' });
              }}
            >
              Forgot your password?
            </button>
          </p>
        </form>
      )}
      {stage.kind === 'challenge' && stage.challenge.name === 'NEW_PASSWORD_REQUIRED' && (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            const form = event.currentTarget;
            const password = field(form, 'new-password');
            if (password !== field(form, 'repeat-password')) {
              setError(new CognitoError('Mismatch', 'The two passwords differ.'));
              return;
            }
            void run(() => answerChallenge(config, stage.challenge, password));
          }}
        >
          <p>You signed in with a temporary password: choose your own.</p>
          <label for="new-password">New password</label>
          <input
            id="new-password"
            name="new-password"
            type="password"
            autocomplete="new-password"
            required
          />
          <label for="repeat-password">The same again</label>
          <input
            id="repeat-password"
            name="repeat-password"
            type="password"
            autocomplete="new-password"
            required
          />
          <button type="submit" disabled={busy}>
            Set password and sign in
          </button>
        </form>
      )}
      {stage.kind === 'challenge' && stage.challenge.name === 'SOFTWARE_TOKEN_MFA' && (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            const code = field(event.currentTarget, 'code');
            void run(() => answerChallenge(config, stage.challenge, code));
          }}
        >
          <label for="code">The 6-digit code from your authenticator app</label>
          <input
            id="code"
            name="code"
            inputMode="numeric"
            autocomplete="one-time-code"
            pattern="[0-9]{6}"
            required
          />
          <button type="submit" disabled={busy}>
            Sign in
          </button>
        </form>
      )}
      {stage.kind === 'challenge' &&
        !['NEW_PASSWORD_REQUIRED', 'SOFTWARE_TOKEN_MFA'].includes(stage.challenge.name) && (
          <p class="problem" role="alert">
            The sign-in asks for a step the console does not offer ({stage.challenge.name}): ask an
            admin to check your account.
          </p>
        )}
      {stage.kind === 'forgot' && (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            const email = field(event.currentTarget, 'forgot-email');
            void run(async () => {
              await forgotPassword(config, email);
              setNotice('If the address has an account, a code is on its way to it.');
              setStage({ kind: 'reset', email });
              return undefined;
            });
          }}
        >
          <label for="forgot-email">Email address</label>
          <input id="forgot-email" name="forgot-email" type="email" required />
          <button type="submit" disabled={busy}>
            Send me a code
          </button>
          <p>
            <button type="button" class="link" onClick={() => setStage({ kind: 'password' })}>
              Back to sign-in
            </button>
          </p>
        </form>
      )}
      {stage.kind === 'reset' && (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            const form = event.currentTarget;
            void run(async () => {
              await confirmForgotPassword(
                config,
                stage.email,
                field(form, 'reset-code'),
                field(form, 'reset-password'),
              );
              setNotice('Your password is changed: sign in with it.');
              setStage({ kind: 'password' });
              return undefined;
            });
          }}
        >
          <label for="reset-code">Code from the mail</label>
          <input
            id="reset-code"
            name="reset-code"
            inputMode="numeric"
            autocomplete="one-time-code"
            required
          />
          <label for="reset-password">New password</label>
          <input
            id="reset-password"
            name="reset-password"
            type="password"
            autocomplete="new-password"
            required
          />
          <button type="submit" disabled={busy}>
            Set password
          </button>
        </form>
      )}
      {busy && <Busy label="Waiting for the sign-in service…" />}
      {error !== undefined && (
        <div class="problem" role="alert">
          <p>
            <strong>{error instanceof Error ? error.message : String(error)}</strong>
          </p>
          <p>{adviceOf(error)}</p>
        </div>
      )}
    </main>
  );
}
