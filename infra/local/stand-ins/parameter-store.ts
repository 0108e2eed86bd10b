import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { dirname, resolve as resolvePath } from 'node:path';
import { findFreePort, LOCAL_HOST } from './free-port.ts';
import { readBody } from './read-body.ts';

/** Parameter types of SSM Parameter Store. */
export type ParameterType = 'String' | 'StringList' | 'SecureString';

/** Parameter tiers of SSM Parameter Store. */
export type ParameterTier = 'Standard' | 'Advanced' | 'Intelligent-Tiering';

/** One stored parameter, as the stand-in holds it (value in plaintext). */
export interface StoredParameter {
  readonly name: string;
  readonly type: ParameterType;
  readonly value: string;
  /** 1 on creation, +1 on every overwrite. */
  readonly version: number;
  readonly tier: ParameterTier;
  readonly dataType: string;
  readonly lastModifiedDate: Date;
  /** What a SecureString read without decryption returns instead of the value. */
  readonly ciphertext: string;
}

/** How to start the Parameter Store stand-in. */
export interface ParameterStoreOptions {
  /** TCP port; a free one is picked when omitted. */
  port?: number;
  /**
   * JSON file that parameters are loaded from at start and written to after every change
   * (atomically). It holds SecureString values in plaintext, with mode 0600. In memory only
   * when omitted.
   */
  file?: string;
}

/** A running SSM Parameter Store stand-in. */
export interface ParameterStore {
  /** Base URL for `endpoint` / `AWS_ENDPOINT_URL_SSM`, e.g. `http://127.0.0.1:4583`. */
  readonly endpoint: string;
  readonly port: number;
  /** Creates or overwrites a parameter (no ParameterAlreadyExists here); type defaults to String. */
  put(name: string, value: string, type?: ParameterType): void;
  /** The stored parameter with its plaintext value, or undefined. */
  get(name: string): StoredParameter | undefined;
  /**
   * Makes the next `count` requests, whatever their target, answer HTTP 400 with
   * `{"__type": errorType}`. The SDK retries ThrottlingException (3 attempts by default), so
   * a caller sees the error only when `count` reaches its attempts.
   */
  failNext(count: number, errorType?: string): void;
  /** Closes the port, dropping open connections. Safe to call more than once. */
  stop(): Promise<void>;
}

const MAX_BODY_BYTES = 1024 * 1024;
const ACCOUNT = '000000000000';
const DEFAULT_REGION = 'us-east-1';
const NAME_PATTERN = /^[a-zA-Z0-9_.\-/]+$/;
const TYPES: readonly string[] = ['String', 'StringList', 'SecureString'];
const TIERS: readonly string[] = ['Standard', 'Advanced', 'Intelligent-Tiering'];
const FILE_FORMAT = 1;

/** An error answered as `{"__type": type, "message": message}` with HTTP 400. */
class ServiceError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

interface PersistedFile {
  format: number;
  parameters: Array<Omit<StoredParameter, 'lastModifiedDate'> & { lastModifiedDate: string }>;
}

/**
 * Starts an SSM Parameter Store stand-in speaking the AWS JSON 1.1 protocol the way
 * `@aws-sdk/client-ssm` uses it: GetParameter, GetParameters, PutParameter, DeleteParameter.
 *
 * Names are plain names only: version or label selectors (`name:3`) and ARNs are not
 * understood and read as ParameterNotFound. Parameter values never reach a log or an error.
 *
 * @throws Error when the port is taken or `file` exists but is not a parameter file.
 */
export async function startParameterStore(
  options: ParameterStoreOptions = {},
): Promise<ParameterStore> {
  const port = options.port ?? (await findFreePort());
  const file = options.file === undefined ? undefined : resolvePath(options.file);
  const parameters = file === undefined ? new Map<string, StoredParameter>() : load(file);
  let failures: { remaining: number; type: string } = { remaining: 0, type: '' };

  const save = (): void => {
    if (file !== undefined) {
      persist(file, parameters);
    }
  };

  const write = (
    name: string,
    value: string,
    type: ParameterType,
    tier: ParameterTier,
    dataType: string,
  ): number => {
    const version = (parameters.get(name)?.version ?? 0) + 1;
    parameters.set(name, {
      name,
      type,
      value,
      version,
      tier,
      dataType,
      lastModifiedDate: new Date(),
      ciphertext: fakeCiphertext(),
    });
    save();
    return version;
  };

  const handle = (target: string, input: Record<string, unknown>, region: string): unknown => {
    switch (target) {
      case 'AmazonSSM.GetParameter': {
        const name = requireString(input, 'Name');
        const parameter = parameters.get(name);
        if (parameter === undefined) {
          throw new ServiceError('ParameterNotFound', `Parameter ${name} not found.`);
        }
        return { Parameter: describe(parameter, input.WithDecryption === true, region) };
      }
      case 'AmazonSSM.GetParameters': {
        const names = input.Names;
        if (!Array.isArray(names) || names.length === 0 || names.length > 10) {
          throw new ServiceError('ValidationException', 'Names must hold between 1 and 10 names.');
        }
        const found: unknown[] = [];
        const invalid: string[] = [];
        for (const name of new Set(names.map(String))) {
          const parameter = parameters.get(name);
          if (parameter === undefined) {
            invalid.push(name);
          } else {
            found.push(describe(parameter, input.WithDecryption === true, region));
          }
        }
        return { Parameters: found, InvalidParameters: invalid };
      }
      case 'AmazonSSM.PutParameter': {
        const name = validName(requireString(input, 'Name'));
        const value = requireString(input, 'Value');
        const existing = parameters.get(name);
        if (existing !== undefined && input.Overwrite !== true) {
          throw new ServiceError(
            'ParameterAlreadyExists',
            'The parameter already exists. To overwrite this value, set the overwrite option in the request to true.',
          );
        }
        const type = input.Type ?? existing?.type;
        if (type === undefined) {
          throw new ServiceError(
            'ValidationException',
            'A parameter type is required when you create a parameter.',
          );
        }
        if (typeof type !== 'string' || !TYPES.includes(type)) {
          throw new ServiceError('ValidationException', `Type must be one of ${TYPES.join(', ')}.`);
        }
        const tier = input.Tier ?? existing?.tier ?? 'Standard';
        if (typeof tier !== 'string' || !TIERS.includes(tier)) {
          throw new ServiceError('ValidationException', `Tier must be one of ${TIERS.join(', ')}.`);
        }
        const dataType =
          typeof input.DataType === 'string' ? input.DataType : (existing?.dataType ?? 'text');
        const version = write(name, value, type as ParameterType, tier as ParameterTier, dataType);
        return { Version: version, Tier: tier };
      }
      case 'AmazonSSM.DeleteParameter': {
        const name = requireString(input, 'Name');
        if (!parameters.delete(name)) {
          throw new ServiceError('ParameterNotFound', `Parameter ${name} not found.`);
        }
        save();
        return {};
      }
      default:
        throw new ServiceError(
          'InvalidAction',
          `The action ${target || '(none)'} is not valid for this web service.`,
        );
    }
  };

  const server = createServer((req, res) => {
    void respond(req, res);
  });
  const respond = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    try {
      // Read the body first even when failing: answering before it is consumed can reset
      // the SDK's connection instead of delivering the error.
      const body = await readBody(req, MAX_BODY_BYTES);
      if (!body) throw new ServiceError('ValidationException', 'The request body is too large.');
      if (failures.remaining > 0) {
        failures = { ...failures, remaining: failures.remaining - 1 };
        throw new ServiceError(failures.type, 'Simulated failure (failNext).');
      }
      const target = header(req, 'x-amz-target');
      if (req.method !== 'POST' || !target.startsWith('AmazonSSM.')) {
        throw new ServiceError(
          'InvalidAction',
          `The action ${target || '(none)'} is not valid for this web service.`,
        );
      }
      let input: unknown;
      try {
        input = body.length === 0 ? {} : JSON.parse(body.toString('utf8'));
      } catch {
        throw new ServiceError('SerializationException', 'The request body is not valid JSON.');
      }
      if (typeof input !== 'object' || input === null || Array.isArray(input)) {
        throw new ServiceError('SerializationException', 'The request body must be a JSON object.');
      }
      const output = handle(target, input as Record<string, unknown>, regionOf(req));
      send(res, 200, output);
    } catch (error) {
      if (error instanceof ServiceError) {
        send(res, 400, { __type: error.type, message: error.message });
      } else {
        send(res, 500, { __type: 'InternalServerError', message: 'The stand-in failed.' });
      }
    }
  };

  await listen(server, port);
  let stopping: Promise<void> | undefined;
  return {
    endpoint: `http://${LOCAL_HOST}:${port}`,
    port,
    put: (name, value, type = 'String') => {
      validName(name);
      if (!TYPES.includes(type)) {
        throw new Error(`Unknown parameter type ${type}`);
      }
      const existing = parameters.get(name);
      write(name, value, type, existing?.tier ?? 'Standard', existing?.dataType ?? 'text');
    },
    get: (name) => parameters.get(name),
    failNext: (count, errorType = 'ThrottlingException') => {
      if (!Number.isInteger(count) || count < 0) {
        throw new Error('failNext: count must be a non-negative integer');
      }
      failures = { remaining: count, type: errorType };
    },
    stop: () => {
      stopping ??= new Promise((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
      return stopping;
    },
  };
}

function describe(
  parameter: StoredParameter,
  withDecryption: boolean,
  region: string,
): Record<string, unknown> {
  const hidden = parameter.type === 'SecureString' && !withDecryption;
  // ARNs write a hierarchical name without its leading slash after `parameter/`.
  const arnName = parameter.name.startsWith('/') ? parameter.name.slice(1) : parameter.name;
  return {
    Name: parameter.name,
    Type: parameter.type,
    Value: hidden ? parameter.ciphertext : parameter.value,
    Version: parameter.version,
    // JSON 1.1 timestamps are epoch seconds.
    LastModifiedDate: parameter.lastModifiedDate.getTime() / 1000,
    ARN: `arn:aws:ssm:${region}:${ACCOUNT}:parameter/${arnName}`,
    DataType: parameter.dataType,
  };
}

// Shaped like a KMS ciphertext blob (base64, starting with the version byte 0x01), so code
// that forgets WithDecryption gets something clearly unusable rather than the secret.
function fakeCiphertext(): string {
  return Buffer.concat([Buffer.from([0x01, 0x02, 0x02, 0x00]), randomBytes(92)]).toString('base64');
}

function validName(name: string): string {
  // The real service's rules, so that a name accepted locally is accepted in AWS too.
  if (name.length === 0 || name.length > 2048 || !NAME_PATTERN.test(name)) {
    throw new ServiceError(
      'ValidationException',
      'Parameter name must be 1 to 2048 characters of a-zA-Z0-9_.-/ only.',
    );
  }
  if (name.includes('/') && !name.startsWith('/')) {
    throw new ServiceError('ValidationException', 'Parameter name must be a fully qualified name.');
  }
  if (/^\/?(aws|ssm)/i.test(name)) {
    throw new ServiceError('ValidationException', 'Parameter name must not begin with aws or ssm.');
  }
  return name;
}

function requireString(input: Record<string, unknown>, key: string): string {
  const value = input[key];
  if (typeof value !== 'string' || value.length === 0) {
    throw new ServiceError('ValidationException', `${key} must be a non-empty string.`);
  }
  return value;
}

function header(req: IncomingMessage, name: string): string {
  const value = req.headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

// The SigV4 credential scope names the region the client was configured with; echoing it in
// ARNs keeps them consistent with the caller's configuration.
function regionOf(req: IncomingMessage): string {
  return (
    /Credential=[^/]+\/\d{8}\/([^/]+)\/ssm\//.exec(header(req, 'authorization'))?.[1] ??
    DEFAULT_REGION
  );
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/x-amz-json-1.1',
    'content-length': Buffer.byteLength(text),
    'x-amzn-requestid': randomUUID(),
  });
  res.end(text);
}

function load(file: string): Map<string, StoredParameter> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return new Map();
    }
    throw error;
  }
  // The file's content is never quoted in an error: it holds secrets.
  let parsed: PersistedFile;
  try {
    parsed = JSON.parse(text) as PersistedFile;
  } catch {
    throw new Error(`Parameter file ${file} is not valid JSON`);
  }
  if (parsed.format !== FILE_FORMAT || !Array.isArray(parsed.parameters)) {
    throw new Error(`Parameter file ${file} is not a parameter file of format ${FILE_FORMAT}`);
  }
  return new Map(
    parsed.parameters.map((p) => [
      p.name,
      { ...p, lastModifiedDate: new Date(p.lastModifiedDate) },
    ]),
  );
}

function persist(file: string, parameters: Map<string, StoredParameter>): void {
  const content: PersistedFile = {
    format: FILE_FORMAT,
    parameters: [...parameters.values()].map((p) => ({
      ...p,
      lastModifiedDate: p.lastModifiedDate.toISOString(),
    })),
  };
  mkdirSync(dirname(file), { recursive: true });
  // Same directory as the target, so rename() is atomic: a reader sees the old or the new file.
  const temp = `${file}.${process.pid}.${randomUUID()}.tmp`;
  try {
    writeFileSync(temp, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, LOCAL_HOST, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
