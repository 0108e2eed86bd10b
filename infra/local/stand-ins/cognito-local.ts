/**
 * Amazon Cognito user pools on this machine: the npm emulator `cognito-local`, run in this
 * process on a free port. Built from its parts rather than its `createDefaultServer`, which
 * reads its port and issuer from the environment at import time and keeps its data in
 * `./.cognito` of the working directory: here the port is the one the OS gave, the tokens'
 * issuer is this stand-in's own URL (so the JWKS is found where the issuer says), and the
 * data lives in the folder given (DATA_DIR) or in a temporary one removed at stop.
 *
 * What it provides, checked by test/local/cognito-local.test.ts: user pools, app clients with
 * USER_PASSWORD_AUTH and REFRESH_TOKEN_AUTH, groups (in the ID token's `cognito:groups`),
 * admin-created users (only with `MessageAction: SUPPRESS`: it cannot deliver the welcome mail),
 * the NEW_PASSWORD_REQUIRED challenge, RS256 ID tokens, and each pool's JWKS at
 * `/{userPoolId}/.well-known/jwks.json`. It answers CORS for any origin, so a browser reaches it
 * from the console's origin as it reaches Cognito. Every pool shares one signing key (shipped
 * with the package): a token of another pool is told apart by its issuer, as a verifier must.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOCAL_HOST } from '../local-host.ts';

/** A running Cognito stand-in. */
export interface CognitoLocal {
  /** Where the Cognito JSON API is POSTed to, and the tokens' issuer domain. */
  readonly endpoint: string;
  /** The issuer of a pool's tokens: `{endpoint}/{userPoolId}` (Cognito's: `https://cognito-idp.{region}.amazonaws.com/{userPoolId}`). */
  issuer(userPoolId: string): string;
  stop(): Promise<void>;
}

/** How to start it. */
export interface CognitoLocalOptions {
  /** Folder its pools and users are kept in across restarts; default: a temporary one. */
  readonly dataDir?: string;
}

// cognito-local is CommonJS without an `exports` map; its parts are loaded by path.
const require = createRequire(import.meta.url);

interface Logger {
  child(bindings: object): Logger;
}

/** cognito-local's router: the handler of an `X-Amz-Target` operation. */
type Route = (ctx: object, request: Record<string, unknown>) => Promise<unknown>;

interface PoolService {
  getUserByUsername(ctx: object, username: string): Promise<object | null>;
  storeRefreshToken(ctx: object, token: string, user: object): Promise<void>;
}

/**
 * Two gaps of cognito-local 5.3.0 where Cognito is stricter or does more, closed in front of
 * its router: it keeps a refresh token only from InitiateAuth, so a session begun by answering
 * NEW_PASSWORD_REQUIRED (every person's first sign-in) could not be refreshed; and it never
 * checks a refresh token's expiry, where Cognito refuses one past the client's
 * RefreshTokenValidity (12 hours for the console's client).
 */
function mendedRouter(
  router: (target: string) => Route,
  cognito: { getUserPoolForClientId(ctx: object, clientId: string): Promise<PoolService> },
  NotAuthorized: new (message: string) => Error,
): (target: string) => Route {
  return (target) => {
    const route = router(target);
    if (target === 'InitiateAuth') {
      return async (ctx, request) => {
        const refresh = (request.AuthParameters as Record<string, unknown> | undefined)
          ?.REFRESH_TOKEN;
        if (request.AuthFlow === 'REFRESH_TOKEN_AUTH' && typeof refresh === 'string') {
          const payload = JSON.parse(
            Buffer.from(refresh.split('.')[1] ?? '', 'base64url').toString('utf8') || '{}',
          ) as { exp?: number };
          if (!payload.exp || payload.exp * 1000 <= Date.now())
            throw new NotAuthorized('Refresh Token has expired');
        }
        return route(ctx, request);
      };
    }
    if (target !== 'RespondToAuthChallenge') return route;
    return async (ctx, request) => {
      const answer = (await route(ctx, request)) as {
        AuthenticationResult?: { RefreshToken?: string };
      };
      const token = answer.AuthenticationResult?.RefreshToken;
      const username = (request.ChallengeResponses as Record<string, unknown> | undefined)
        ?.USERNAME;
      if (token && typeof username === 'string' && typeof request.ClientId === 'string') {
        const pool = await cognito.getUserPoolForClientId(ctx, request.ClientId);
        const user = await pool.getUserByUsername(ctx, username);
        if (user) await pool.storeRefreshToken(ctx, token, user);
      }
      return answer;
    };
  };
}

/** Starts cognito-local on a free loopback port. */
export async function startCognitoLocal(options: CognitoLocalOptions = {}): Promise<CognitoLocal> {
  // It loads the old AWS SDK (v2) for triggers it never runs here; its notice is noise.
  process.env.AWS_SDK_JS_SUPPRESS_MAINTENANCE_MODE_MESSAGE ??= '1';
  const own = options.dataDir === undefined;
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'cognito-local-')));
  const { createServer: cognitoServer } = require('cognito-local/lib/server/server.js');
  const { Router } = require('cognito-local/lib/server/Router.js');
  const services = require('cognito-local/lib/services/index.js');
  const { CognitoServiceFactoryImpl } = require('cognito-local/lib/services/cognitoService.js');
  const { UserPoolServiceFactoryImpl } = require('cognito-local/lib/services/userPoolService.js');
  const { StormDBDataStoreFactory } = require('cognito-local/lib/services/dataStore/stormDb.js');
  const { JwtTokenGenerator } = require('cognito-local/lib/services/tokenGenerator.js');
  const {
    MessageDeliveryService,
  } = require('cognito-local/lib/services/messageDelivery/messageDelivery.js');
  const {
    ConsoleMessageSender,
  } = require('cognito-local/lib/services/messageDelivery/consoleMessageSender.js');
  const { otp } = require('cognito-local/lib/services/otp.js');
  const { CryptoService } = require('cognito-local/lib/services/crypto.js');
  // Its own pino, silenced: its request log is not the service's.
  const pino = createRequire(require.resolve('cognito-local'))('pino') as (options: {
    level: string;
  }) => Logger;
  const logger = pino({ level: 'silent' });

  // The port is known once bound; the app that answers is built once the issuer is known.
  let app: ((request: unknown, response: unknown) => void) | undefined;
  const sockets = new Set<Socket>();
  const server: Server = createServer((request, response) => {
    if (app) app(request, response);
    else response.writeHead(503).end();
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, LOCAL_HOST, () => resolve());
  });
  const endpoint = `http://${LOCAL_HOST}:${(server.address() as AddressInfo).port}`;

  const ctx = { logger };
  const config = {
    LambdaClient: {},
    TriggerFunctions: {},
    // Cognito's default for a pool made by the API: the username is the user's name, not an
    // address; the stack's pool says how it signs in (UsernameAttributes) when it is created.
    UserPoolDefaults: {},
    TokenConfig: { IssuerDomain: endpoint },
    KMSConfig: {},
    ServerConfig: { port: 0, hostname: LOCAL_HOST, development: false, https: false },
  };
  const clock = new services.DateClock();
  const dataStores = new StormDBDataStoreFactory(dataDir);
  const cognito = await new CognitoServiceFactoryImpl(
    dataDir,
    dataStores,
    new UserPoolServiceFactoryImpl(clock, dataStores),
  ).create(ctx, config.UserPoolDefaults);
  // No triggers are configured, so neither Lambda nor KMS is ever called.
  const unused = {};
  const triggers = new services.TriggersService(
    clock,
    cognito,
    new services.LambdaService(config.TriggerFunctions, unused),
    new CryptoService(config.KMSConfig),
  );
  const all = {
    clock,
    cognito,
    config,
    messages: new services.MessagesService(
      triggers,
      new MessageDeliveryService(new ConsoleMessageSender()),
    ),
    otp,
    tokenGenerator: new JwtTokenGenerator(clock, triggers, config.TokenConfig),
    triggers,
  };
  const { NotAuthorizedError } = require('cognito-local/lib/errors.js');
  app = cognitoServer(
    mendedRouter(Router(all), cognito, NotAuthorizedError),
    logger,
    config.ServerConfig,
    all,
  ).application;

  let stopping: Promise<void> | undefined;
  return {
    endpoint,
    issuer: (userPoolId) => `${endpoint}/${userPoolId}`,
    stop: () => {
      stopping ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }).then(() => (own ? rm(dataDir, { recursive: true, force: true }) : undefined));
      return stopping;
    },
  };
}
