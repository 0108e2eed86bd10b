import { parseSettings, SettingsError } from '../../domain/parse-settings.ts';
import type { Settings } from '../../domain/settings-schema.ts';
import type { CachedParameters } from './cached-parameters.ts';

/** The names of the two parameters the service reads. */
export interface ParameterNames {
  readonly apiKeyParameter: string;
  readonly settingsParameter: string;
}

/**
 * The API key and the settings, both read through one cache. A keyed request reads both names
 * in one go, so the settings it needs next cost nothing more.
 */
export class ServiceParameters {
  private parsed?: { readonly raw: string; readonly settings: Settings };

  constructor(
    private readonly names: ParameterNames,
    private readonly cache: CachedParameters,
  ) {}

  /** The configured API key, or undefined when none is configured. */
  readonly apiKey = async (): Promise<string | undefined> => {
    const values = await this.cache.get([this.names.apiKeyParameter, this.names.settingsParameter]);
    return values.get(this.names.apiKeyParameter) || undefined;
  };

  /** The current settings, validated; throws SettingsError naming a bad field. */
  readonly settings = async (): Promise<Settings> => {
    const values = await this.cache.get([this.names.settingsParameter]);
    const raw = values.get(this.names.settingsParameter);
    if (raw === undefined) {
      throw new SettingsError(`settings: parameter ${this.names.settingsParameter} does not exist`);
    }
    // Parse once per distinct document, not once per request.
    if (this.parsed?.raw !== raw) this.parsed = { raw, settings: parseSettings(raw) };
    return this.parsed.settings;
  };
}
