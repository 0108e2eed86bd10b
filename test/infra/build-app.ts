import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { inject } from 'vitest';
import { createNewsletterApp, type NewsletterApp } from '../../infra/cdk/newsletter-app.ts';

const cdkJson = JSON.parse(
  readFileSync(resolve(import.meta.dirname, '..', '..', 'cdk.json'), 'utf8'),
) as { context: Record<string, unknown> };

/** The app as `cdk synth` builds it, plus the synthesised template of its stack. */
export interface BuiltApp extends NewsletterApp {
  readonly template: Template;
}

/**
 * Builds the app with cdk.json's feature flags (so the template is the one that deploys) and
 * without bundling (no esbuild run; the handler files must still exist). Importing aws-cdk-lib
 * costs seconds: build once per test file.
 */
export function buildApp(context: Record<string, unknown> = {}): BuiltApp {
  const built = createNewsletterApp({
    context: {
      ...cdkJson.context,
      'aws:cdk:bundling-stacks': [],
      senderIdentity: 'example.com',
      // The console this run built (test/support/global-setup.ts): the stack deploys it.
      consoleDir: inject('consoleDir'),
      ...context,
    },
  });
  return { ...built, template: Template.fromStack(built.stack) };
}

/** A resource of a synthesised template. */
export interface TemplateResource {
  readonly Type: string;
  readonly Properties: Record<string, unknown>;
  readonly DeletionPolicy?: string;
  readonly Condition?: string;
  readonly UpdateReplacePolicy?: string;
}

/** All resources of one type, by logical id. */
export function resourcesOfType(template: Template, type: string): Map<string, TemplateResource> {
  const all = template.toJSON().Resources as Record<string, TemplateResource>;
  return new Map(Object.entries(all).filter(([, resource]) => resource.Type === type));
}
