/** The two supported payment providers. */
export type ProviderName = 'provider_a' | 'provider_b';
