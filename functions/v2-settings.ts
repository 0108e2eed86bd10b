import {
  isNewsletterError,
  type NewsletterError,
  newsletterError,
} from '../shared/domain/errors.ts';
import { runOperation } from '../shared/operations/run-operation.ts';
import { replaceSettings, showSettings } from '../shared/operations/settings/manage-settings.ts';
import { readEnvironment } from '../shared/runtime/environment.ts';
import { ssmClient } from '../shared/runtime/ssm-client.ts';
import { v2Function } from './http/v2-function.ts';
import { v2Handler } from './http/v2-handler.ts';
import { route } from './route-table/v2-settings.ts';

const { runtime, deps, keyCheck } = v2Function();
const settings = { ssm: ssmClient(), parameter: readEnvironment().settingsParameter };

/** A version as the body gives it: digits, or a number. */
function versionOf(raw: unknown): number | undefined | NewsletterError {
  if (raw === undefined || raw === null || raw === '') return undefined;
  const text = String(raw);
  return /^[1-9]\d{0,9}$/.test(text)
    ? Number(text)
    : newsletterError('invalid_parameter', 'version must be a positive integer');
}

/**
 * v2 `GET /settings` (ours): the settings document as written, its version, and why the
 * functions refuse it if they do; `PUT /settings` replaces it with `settings`, validated as
 * `npx newsletter settings set` validates it, optionally only while still at `version`
 * ([v2.settings]).
 */
export const handler = v2Handler(route, runtime, keyCheck, {
  GET: async () => {
    const shown = await runOperation(deps, 'show_settings', () => showSettings(settings));
    return isNewsletterError(shown) ? shown : { body: shown };
  },
  PUT: async (params) => {
    if (params.settings === undefined || params.settings === null)
      return newsletterError('missing_parameter', 'settings is required: the whole document');
    const version = versionOf(params.version);
    if (isNewsletterError(version)) return version;
    const replaced = await runOperation(deps, 'replace_settings', () =>
      replaceSettings(settings, params.settings, version),
    );
    if (isNewsletterError(replaced)) return replaced;
    return { body: { version: replaced.written.version, tier: replaced.written.tier } };
  },
});
