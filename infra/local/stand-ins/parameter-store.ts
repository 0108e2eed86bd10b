import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, resolve as resolvePath } from 'node:path';
import { LOCAL_ACCOUNT, LOCAL_REGION } from '../cloud/intrinsics.ts';
import { LOCAL_HOST } from '../local-host.ts';
import { readBody } from '../read-body.ts';

/** Parameter types the project uses: the settings (String) and the API key (SecureString). */
export type ParameterType = 'String' | 'SecureString';

/** One stored parameter, as the stand-in holds it (value in plaintext). */
export interface StoredParameter {
  readonly name: string;
  readonly type: ParameterType;
  readonly value: string;
  /** 1 on creation, +1 on every overwrite. */
  readonly version: number;
  /** Standard holds up to 4 KB, Advanced up to 8 KB, as on AWS. */
  readonly tier: ParameterTier;
}

/** The tiers the admin CLI chooses between by size. */
export type ParameterTier = 'Standard' | 'Advanced';

const TIER_MAX_BYTES: Record<ParameterTier, number> = { Standard: 4096, Advanced: 8192 };

/** How to start the Parameter Store stand-in. */
export interface ParameterStoreOptions {
  /** TCP port; 0 or omitted lets the OS pick a free one. */
  port?: number;
  /**
   * JSON file that parameters are loaded from at start and written to after every change
   * (atomically, mode 0600: it holds the key in plaintext). In memory only when omitted.
   */
  file?: string;
}

/** A running SSM Parameter Store stand-in. */
export interface ParameterStore {
  /** Base URL of the stand-in, e.g. `http://127.0.0.1:4583`. */
  readonly endpoint: string;
  readonly port: number;
  /** Creates or overwrites a parameter; type defaults to String. */
  put(name: string, value: string, type?: ParameterType): void;
  /** The stored parameter with its plaintext value, or undefined. */
  get(name: string): StoredParameter | undefined;
  /** Closes the port, dropping open connections. Safe to call more than once. */
  stop(): Promise<void>;
}

/** An error answered as `{"__type": type, "message": message}` with HTTP 400. */
class ServiceError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Starts a stand-in for SSM Parameter Store that speaks exactly what the project calls, over
 * AWS's JSON 1.1 protocol: GetParameter (the Parameters and Secrets extension of the functions,
 * and the admin CLI) and PutParameter (the admin CLI). Anything else is refused as the service refuses an unknown action. Faults and
 * permissions are not its business: the local cloud's AWS endpoint in front of it handles both.
 */
export async function startParameterStore(
  options: ParameterStoreOptions = {},
): Promise<ParameterStore> {
  const file = options.file === undefined ? undefined : resolvePath(options.file);
  const parameters = file === undefined ? new Map<string, StoredParameter>() : load(file);
  // What a SecureString read without decryption returns: stable per version, like a stored
  // ciphertext, and clearly unusable as the value.
  const ciphertexts = new Map<string, string>();
  const ciphertextOf = (parameter: StoredParameter): string => {
    const key = `${parameter.name}#${parameter.version}`;
    let blob = ciphertexts.get(key);
    if (!blob) {
      blob = Buffer.concat([Buffer.from([1, 2, 2, 0]), randomBytes(60)]).toString('base64');
      ciphertexts.set(key, blob);
    }
    return blob;
  };

  const write = (
    name: string,
    value: string,
    type: ParameterType,
    tier: ParameterTier = parameters.get(name)?.tier ?? 'Standard',
  ): number => {
    if (Buffer.byteLength(value) > TIER_MAX_BYTES[tier]) {
      throw new ServiceError(
        'ValidationException',
        `The value exceeds the ${TIER_MAX_BYTES[tier]} bytes of the ${tier} tier.`,
      );
    }
    const version = (parameters.get(name)?.version ?? 0) + 1;
    parameters.set(name, { name, type, value, version, tier });
    if (file !== undefined) persist(file, parameters);
    return version;
  };

  const describe = (parameter: StoredParameter, withDecryption: boolean) => ({
    Name: parameter.name,
    Type: parameter.type,
    Value:
      parameter.type === 'SecureString' && !withDecryption
        ? ciphertextOf(parameter)
        : parameter.value,
    Version: parameter.version,
    ARN: `arn:aws:ssm:${LOCAL_REGION}:${LOCAL_ACCOUNT}:parameter/${parameter.name.replace(/^\//, '')}`,
    DataType: 'text',
  });

  const handle = (target: string, input: Record<string, unknown>): unknown => {
    switch (target) {
      case 'AmazonSSM.GetParameter': {
        const parameter = parameters.get(String(input.Name));
        if (!parameter)
          throw new ServiceError('ParameterNotFound', `Parameter ${input.Name} not found.`);
        return { Parameter: describe(parameter, input.WithDecryption === true) };
      }
      case 'AmazonSSM.PutParameter': {
        const name = validName(String(input.Name ?? ''));
        if (typeof input.Value !== 'string' || input.Value.length === 0) {
          throw new ServiceError('ValidationException', 'Value must be a non-empty string.');
        }
        const existing = parameters.get(name);
        if (existing && input.Overwrite !== true) {
          throw new ServiceError('ParameterAlreadyExists', 'The parameter already exists.');
        }
        const type = input.Type ?? existing?.type;
        if (type !== 'String' && type !== 'SecureString') {
          throw new ServiceError('ValidationException', 'Type must be String or SecureString.');
        }
        const tier = input.Tier ?? existing?.tier ?? 'Standard';
        if (tier !== 'Standard' && tier !== 'Advanced') {
          throw new ServiceError('ValidationException', 'Tier must be Standard or Advanced.');
        }
        return { Version: write(name, input.Value, type, tier), Tier: tier };
      }
      default:
        throw new ServiceError('InvalidAction', `The action ${target || '(none)'} is not valid.`);
    }
  };

  const respond = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // Read the body first even when failing: answering before it is consumed can reset the
    // SDK's connection instead of delivering the error.
    const body = await readBody(req, 1024 * 1024);
    try {
      if (!body) throw new ServiceError('ValidationException', 'The request body is too large.');
      let input: unknown;
      try {
        input = body.length === 0 ? {} : JSON.parse(body.toString('utf8'));
      } catch {
        throw new ServiceError('SerializationException', 'The request body is not valid JSON.');
      }
      if (typeof input !== 'object' || input === null || Array.isArray(input)) {
        throw new ServiceError('SerializationException', 'The request body must be a JSON object.');
      }
      const target = String(req.headers['x-amz-target'] ?? '');
      send(res, 200, handle(target, input as Record<string, unknown>));
    } catch (error) {
      if (error instanceof ServiceError)
        send(res, 400, { __type: error.type, message: error.message });
      else send(res, 500, { __type: 'InternalServerError', message: 'The stand-in failed.' });
    }
  };

  const server = createServer((req, res) => void respond(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // Port 0: the OS picks a free port as the socket binds, so nothing can take it first.
    server.listen(options.port ?? 0, LOCAL_HOST, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  let stopping: Promise<void> | undefined;
  return {
    endpoint: `http://${LOCAL_HOST}:${port}`,
    port,
    put: (name, value, type = 'String') => {
      const size = Buffer.byteLength(value);
      write(validName(name), value, type, size > TIER_MAX_BYTES.Standard ? 'Advanced' : 'Standard');
    },
    get: (name) => parameters.get(name),
    stop: () => {
      stopping ??= new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return stopping;
    },
  };
}

/** SSM's own naming rules, so that a name accepted here is accepted on AWS too. */
function validName(name: string): string {
  if (!/^[a-zA-Z0-9_.\-/]{1,2048}$/.test(name) || (name.includes('/') && !name.startsWith('/'))) {
    throw new ServiceError(
      'ValidationException',
      'Parameter name must be 1 to 2048 characters of a-zA-Z0-9_.-/, fully qualified.',
    );
  }
  return name;
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

/** The parameter file's content; the file holds secrets, so it is never quoted in an error. */
function load(file: string): Map<string, StoredParameter> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
    throw error;
  }
  let parsed: { parameters?: StoredParameter[] };
  try {
    parsed = JSON.parse(text) as { parameters?: StoredParameter[] };
  } catch {
    throw new Error(`Parameter file ${file} is not valid JSON`);
  }
  if (!Array.isArray(parsed.parameters)) throw new Error(`${file} is not a parameter file`);
  return new Map(
    parsed.parameters.map((p) => [
      p.name,
      {
        name: p.name,
        type: p.type,
        value: p.value,
        version: p.version,
        tier: p.tier ?? 'Standard',
      },
    ]),
  );
}

function persist(file: string, parameters: Map<string, StoredParameter>): void {
  mkdirSync(dirname(file), { recursive: true });
  // Same directory as the target, so rename() is atomic: a reader sees the old or the new file.
  const temp = `${file}.${process.pid}.${randomUUID()}.tmp`;
  try {
    writeFileSync(
      temp,
      `${JSON.stringify({ format: 1, parameters: [...parameters.values()] }, null, 2)}\n`,
      { mode: 0o600 },
    );
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}
