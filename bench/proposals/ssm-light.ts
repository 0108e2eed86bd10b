/**
 * Proposal (replaces `@aws-sdk/client-ssm` in the functions): GetParameters is one signed
 * POST over the AWS JSON 1.1 protocol. The SSM client brings every SSM error class and schema
 * (about 85 KB minified) for that one call; this does it with what the DynamoDB client already
 * bundles (SigV4 signer, credential chain) and node:http(s). It keeps the names the
 * functions import (`SSMClient`, `GetParametersCommand`) so that it can stand in unchanged.
 */
import { createHash, createHmac } from 'node:crypto';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { SignatureV4 } from '@smithy/signature-v4';

/** The part of the SDK's client options this client honours. */
export interface SSMClientConfig {
  readonly maxAttempts?: number;
  readonly requestHandler?: {
    readonly connectionTimeout?: number;
    readonly requestTimeout?: number;
  };
}

/** GetParameters input, as the SDK's command takes it. */
export interface GetParametersCommandInput {
  readonly Names: string[];
  readonly WithDecryption?: boolean;
}

/** What the functions read of GetParameters' output. */
export interface GetParametersCommandOutput {
  readonly Parameters?: { readonly Name?: string; readonly Value?: string }[];
  readonly InvalidParameters?: string[];
}

/** The one command this client sends. */
export class GetParametersCommand {
  constructor(readonly input: GetParametersCommandInput) {}
}

type SourceData = string | ArrayBuffer | ArrayBufferView;

const bytes = (data: SourceData): string | Uint8Array =>
  typeof data === 'string'
    ? data
    : ArrayBuffer.isView(data)
      ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
      : new Uint8Array(data);

/** A hash for the signer: SHA-256, or HMAC-SHA-256 when given a key. */
class Sha256 {
  private readonly hash;
  constructor(secret?: SourceData) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(secret));
  }
  update(data: SourceData): void {
    this.hash.update(bytes(data));
  }
  async digest(): Promise<Uint8Array> {
    return this.hash.digest();
  }
}

/** An SSM error, named like the SDK names service errors (`ThrottlingException`…). */
class SsmError extends Error {
  constructor(
    name: string,
    message: string,
    readonly $metadata: { httpStatusCode: number },
  ) {
    super(message);
    this.name = name;
  }
}

const RETRYABLE = /Throttl|InternalServerError|ServiceUnavailable|TooManyUpdates/;

/** Just enough of the SDK client for shared/config: `send(new GetParametersCommand(…))`. */
export class SSMClient {
  private readonly signer: SignatureV4;
  private readonly endpoint: URL;
  private readonly agent: HttpAgent | HttpsAgent;

  constructor(private readonly config: SSMClientConfig = {}) {
    const region = process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? 'us-east-1';
    this.endpoint = new URL(
      process.env.AWS_ENDPOINT_URL_SSM ??
        process.env.AWS_ENDPOINT_URL ??
        `https://ssm.${region}.amazonaws.com`,
    );
    this.agent =
      this.endpoint.protocol === 'http:'
        ? new HttpAgent({ keepAlive: true })
        : new HttpsAgent({ keepAlive: true });
    this.signer = new SignatureV4({
      service: 'ssm',
      region,
      credentials: defaultProvider(),
      sha256: Sha256,
    });
  }

  async send(command: GetParametersCommand): Promise<GetParametersCommandOutput> {
    const attempts = this.config.maxAttempts ?? 3;
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.post(JSON.stringify(command.input));
      } catch (error) {
        const retry =
          error instanceof Error && (RETRYABLE.test(error.name) || !('$metadata' in error));
        if (!retry || attempt >= attempts) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 100 * 2 ** attempt));
      }
    }
  }

  private async post(body: string): Promise<GetParametersCommandOutput> {
    const signed = await this.signer.sign({
      method: 'POST',
      protocol: this.endpoint.protocol,
      hostname: this.endpoint.hostname,
      ...(this.endpoint.port ? { port: Number(this.endpoint.port) } : {}),
      path: '/',
      query: {},
      headers: {
        host: this.endpoint.host,
        'content-type': 'application/x-amz-json-1.1',
        'x-amz-target': 'AmazonSSM.GetParameters',
        'content-length': String(Buffer.byteLength(body)),
      },
      body,
    });
    const send = this.endpoint.protocol === 'http:' ? httpRequest : httpsRequest;
    const timeouts = this.config.requestHandler ?? {};
    const { status, text } = await new Promise<{ status: number; text: string }>(
      (resolve, reject) => {
        const outgoing = send(
          this.endpoint,
          { method: 'POST', headers: signed.headers, agent: this.agent },
          (response) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('end', () =>
              resolve({
                status: response.statusCode ?? 0,
                text: Buffer.concat(chunks).toString('utf8'),
              }),
            );
            response.on('error', reject);
          },
        );
        outgoing.setTimeout(timeouts.requestTimeout ?? 3_000, () =>
          outgoing.destroy(new Error('SSM request timed out')),
        );
        outgoing.on('error', reject);
        outgoing.end(body);
      },
    );
    const parsed = JSON.parse(text || '{}') as GetParametersCommandOutput & {
      __type?: string;
      message?: string;
    };
    if (status !== 200) {
      const name =
        (parsed.__type ?? 'SSMServiceException').split('#').pop() ?? 'SSMServiceException';
      throw new SsmError(name, parsed.message ?? `SSM answered ${status}`, {
        httpStatusCode: status,
      });
    }
    return parsed;
  }
}
