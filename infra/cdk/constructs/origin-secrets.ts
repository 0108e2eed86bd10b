import { RemovalPolicy, Validations } from 'aws-cdk-lib';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';

/** Which origin secret CloudFront sends: a deploy with the next number rotates it. */
export interface OriginSecretsProps {
  /** The generation CloudFront sends (1, 2, …); the one before is still accepted. */
  readonly generation: number;
}

/**
 * The secret the stack's CloudFront distribution sends to the API in a header of its own, so
 * that the API can tell what came through CloudFront ([http.front-door]). Secrets Manager
 * draws each generation (48 letters and digits) and CloudFormation passes it by dynamic
 * reference, so no secret is in the template or the cloud assembly. Two generations live at
 * once: the one CloudFront sends, and the one before, which the API still accepts while
 * CloudFront's edges take the new one; a deploy with the next generation number rotates it
 * without a moment in which a request through CloudFront is refused (docs/deploy.md,
 * "Rotating the origin secret").
 */
export class OriginSecrets extends Construct {
  /** What CloudFront sends: a dynamic reference CloudFormation resolves at deploy time. */
  readonly current: string;
  /** What the API accepts: the current generation and the one before it, if any. */
  readonly accepted: readonly string[];

  constructor(scope: Construct, id: string, props: OriginSecretsProps) {
    super(scope, id);
    const secretOf = (generation: number): string => {
      const secret = new Secret(this, `Generation${generation}`, {
        description: `Origin secret ${generation} of the newsletter API (sent by its CloudFront distribution)`,
        generateSecretString: { passwordLength: 48, excludePunctuation: true, includeSpace: false },
        // Rotated away, it protects nothing any more.
        removalPolicy: RemovalPolicy.DESTROY,
      });
      Validations.of(secret).acknowledge({
        id: 'AwsSolutions-SMG4',
        reason:
          'Rotated by a deploy with the next originSecretGeneration (docs/deploy.md, "Rotating ' +
          'the origin secret"): CloudFront, the web ACL and the functions must change together, ' +
          'in that order, which a rotation Lambda would have to do behind CloudFormation.',
      });
      return secret.secretValue.unsafeUnwrap();
    };
    this.current = secretOf(props.generation);
    this.accepted =
      props.generation > 1 ? [this.current, secretOf(props.generation - 1)] : [this.current];
  }
}
