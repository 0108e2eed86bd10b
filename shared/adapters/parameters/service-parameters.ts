import { parseSettings, SettingsError } from '../../domain/parse-settings.ts';
import type { Settings } from '../../domain/settings-schema.ts';
import type { Environment } from '../../runtime/environment.ts';
import { ssmClient } from '../../runtime/ssm-client.ts';
import { CachedParameters } from './cached-parameters.ts';

/**
 * The container's API key and settings, both read from SSM through one cache. A handler that
 * checks the key warms both names in a single GetParameters call.
 */
export class ServiceParameters {
  private parsed?: { readonly raw: string; readonly settings: Settings };

  constructor(
    private readonly environment: Environment,
    readonly cache: CachedParameters = new CachedParameters(
      ssmClient(),
      environment.parameterCacheMs,
    ),
  ) {}

  /** The names a keyed request needs, for one combined fetch. */
  get names(): readonly string[] {
    return [this.environment.apiKeyParameter, this.environment.settingsParameter];
  }

  /** The configured API key, or undefined when none is configured. */
  async apiKey(): Promise<string | undefined> {
    const values = await this.cache.get(this.names);
    return values.get(this.environment.apiKeyParameter) || undefined;
  }

  /** The current settings, validated; throws SettingsError naming a bad field. */
  async settings(): Promise<Settings> {
    const values = await this.cache.get([this.environment.settingsParameter]);
    const raw = values.get(this.environment.settingsParameter);
    if (raw === undefined) {
      throw new SettingsError(
        `settings: parameter ${this.environment.settingsParameter} does not exist`,
      );
    }
    // Parse once per distinct document, not once per request.
    if (this.parsed?.raw !== raw) this.parsed = { raw, settings: parseSettings(raw) };
    return this.parsed.settings;
  }
}
