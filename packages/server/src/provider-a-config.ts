import type { Environment, LicenseEngine } from '@svc-licensing/license-engine';
import { ConfigError, optionValue, options, type Env } from './config.js';

const ENVIRONMENTS = ['live', 'sandbox'] as const;
const OPTION = { live: 'providerAApiUrlLive', sandbox: 'providerAApiUrlSandbox' } as const;

/**
 * provider_a's API address per integration environment: `--provider-a-api-url-live` and
 * `--provider-a-api-url-sandbox`, each falling back to `--provider-a-api-url` (which serves both,
 * as it always did). An environment without one is left out: its integrations' API keys are not used.
 *
 * @example
 * ```ts
 * providerAApiUrls({}, { SVC_PROVIDER_A_API_URL_LIVE: 'https://api.provider-a.example' }); // { live: 'https://api.provider-a.example' }
 * ```
 */
export function providerAApiUrls(flags: Record<string, unknown>, env: Env): Partial<Record<Environment, string>> {
  const both = optionValue('providerAApiUrl', flags, env);
  const urls: Partial<Record<Environment, string>> = {};
  for (const environment of ENVIRONMENTS) {
    const own = optionValue(OPTION[environment], flags, env);
    const url = own ?? both;
    if (url === undefined) continue;
    if (!/^https?:\/\/[^/\s]+(\/\S*)?$/.test(url)) {
      const flag = options[own === undefined ? 'providerAApiUrl' : OPTION[environment]].flag;
      throw new ConfigError(`--${flag} must be an http(s) URL, got ${JSON.stringify(url)}`);
    }
    urls[environment] = url;
  }
  return urls;
}

/**
 * The start-up warnings about provider_a API keys this server cannot use: one per environment
 * that has integrations with an API key but no API address. Empty when every key can be used.
 */
export async function unusableApiKeyWarnings(engine: Pick<LicenseEngine, 'countProviderAApiKeys'>, urls: Partial<Record<Environment, string>>): Promise<string[]> {
  const counts = await engine.countProviderAApiKeys();
  return ENVIRONMENTS.filter((environment) => urls[environment] === undefined && counts[environment] > 0).map((environment) => {
    const n = counts[environment];
    return (
      `${n} provider_a ${environment} integration${n === 1 ? ' has' : 's have'} an API key this server cannot use: ` +
      `start it with --${options[OPTION[environment]].flag} (or ${options[OPTION[environment]].env}) to look up unknown customers; ` +
      'until then their purchases wait for customer.created'
    );
  });
}
