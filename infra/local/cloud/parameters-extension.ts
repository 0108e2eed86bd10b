/**
 * The AWS Parameters and Secrets Lambda Extension, as far as the functions use it: an HTTP
 * endpoint in the execution environment that answers
 * `GET /systemsmanager/parameters/get?name=…&withDecryption=true` for callers presenting the
 * environment's session token, by calling SSM GetParameter as the function's role. Here the
 * call goes to the loopback AWS endpoint, signed with the function's credentials, so the role's
 * grants decide exactly as on AWS. Only the configuration the stack uses is accepted (cache
 * off); anything else fails loudly rather than behaving differently from the real extension.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { LOCAL_HOST } from '../local-host.ts';
import { LOCAL_REGION, TemplateError } from './intrinsics.ts';
import type { FunctionCredentials } from './lambda-host.ts';

/** How layer ARNs of the extension look, in every region and for both architectures. */
const EXTENSION_LAYER = /:layer:AWS-Parameters-and-Secrets-Lambda-Extension(-Arm64)?:\d+$/;

/** Whether a layer ARN is the Parameters and Secrets extension. */
export function isParametersExtension(layerArn: string): boolean {
  return EXTENSION_LAYER.test(layerArn);
}

/** The variable that tells the function where the extension listens. */
export const EXTENSION_PORT_VARIABLE = 'PARAMETERS_SECRETS_EXTENSION_HTTP_PORT';

/** A running extension endpoint. */
export interface ParametersExtension {
  readonly port: number;
  stop(): Promise<void>;
}

/**
 * Starts the extension for one function. `environment` is the function's template environment:
 * the extension reads its configuration from there, as the real one does.
 */
export async function startParametersExtension(options: {
  readonly functionName: string;
  readonly environment: Readonly<Record<string, string>>;
  readonly credentials: FunctionCredentials;
  readonly endpoint: string;
}): Promise<ParametersExtension> {
  const { environment, credentials } = options;
  if (environment.PARAMETERS_SECRETS_EXTENSION_CACHE_ENABLED !== 'false') {
    // The real extension would serve cached values for a TTL; the service's own cache is the
    // one its documentation describes, so a template that turns the extension's on is a bug.
    throw new TemplateError(
      `${options.functionName}: the local cloud runs the Parameters and Secrets extension only with PARAMETERS_SECRETS_EXTENSION_CACHE_ENABLED=false`,
    );
  }
  const ssm = new SSMClient({
    region: LOCAL_REGION,
    endpoint: options.endpoint,
    credentials: {
      accessKeyId: credentials.accessKeyId,
      secretAccessKey: credentials.secretAccessKey,
      sessionToken: credentials.sessionToken,
    },
    maxAttempts: 1,
  });
  const server: Server = createServer((request, response) => {
    const answer = (status: number, body: string, type = 'text/plain') => {
      response.writeHead(status, { 'content-type': type });
      response.end(body);
    };
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (request.headers['x-aws-parameters-secrets-token'] !== credentials.sessionToken) {
      answer(401, 'missing or wrong X-Aws-Parameters-Secrets-Token');
      return;
    }
    if (request.method !== 'GET' || url.pathname !== '/systemsmanager/parameters/get') {
      answer(400, `the local extension does not serve ${request.method} ${url.pathname}`);
      return;
    }
    const name = url.searchParams.get('name');
    if (!name) {
      answer(400, 'name is required');
      return;
    }
    ssm
      .send(
        new GetParameterCommand({
          Name: name,
          WithDecryption: url.searchParams.get('withDecryption') === 'true',
        }),
      )
      .then(
        ({ $metadata: _metadata, ...output }) =>
          answer(200, JSON.stringify(output), 'application/json'),
        (error: { name?: string; message?: string; $metadata?: { httpStatusCode?: number } }) =>
          answer(
            error.$metadata?.httpStatusCode ?? 500,
            `${error.name ?? 'Error'}: ${error.message ?? 'GetParameter failed'}`,
          ),
      );
  });
  await new Promise<void>((listening) => server.listen(0, LOCAL_HOST, listening));
  return {
    port: (server.address() as AddressInfo).port,
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((closed) => server.close(() => closed()));
      ssm.destroy();
    },
  };
}
