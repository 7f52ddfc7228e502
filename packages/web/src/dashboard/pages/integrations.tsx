import { useState } from 'preact/hooks';
import { Alert } from '../../ui/components/alert.js';
import { ConfirmButton } from '../../ui/components/dialog.js';
import { CopyField, Id } from '../../ui/components/copy.js';
import { SelectField, TextAreaField, TextField } from '../../ui/components/field.js';
import { FieldProblem, Form } from '../../ui/components/form.js';
import { Badge, Facts, PageHeader, Section } from '../../ui/components/layout.js';
import { settled, useLoad } from '../../ui/hooks.js';
import { href } from '../../ui/router.js';
import type { CreateIntegrationInput, IntegrationWithUrl, UpdateIntegrationInput } from '../../ui/types.js';
import { api } from '../api.js';
import { APP_NAME } from '../context.js';
import { IntegrationWarnings } from '../widgets/integration-warnings.js';

type Environment = IntegrationWithUrl['environment'];

const PROVIDERS: { value: CreateIntegrationInput['provider']; label: string }[] = [
  { value: 'provider_a', label: 'provider_a (price IDs)' },
  { value: 'provider_b', label: 'provider_b (variant IDs)' },
];
const ENVIRONMENTS: { value: Environment; label: string }[] = [
  { value: 'live', label: 'Live' },
  { value: 'sandbox', label: 'Sandbox' },
];

/** `price_1 = pro` lines ⇄ the price map object; a line it cannot read is a problem of the `priceMap` field. */
export function parsePriceMap(text: string): Record<string, string> {
  const map: Record<string, string> = {};
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line === '') continue;
    const match = /^(\S+)\s*(?:=|→|->)\s*(\S+)$/.exec(line);
    if (!match) throw new FieldProblem('priceMap', `Price map line ${i + 1} is not "price or variant ID = plan code": ${line}`);
    map[match[1]!] = match[2]!;
  }
  return map;
}
const formatPriceMap = (map: Record<string, string>) =>
  Object.entries(map)
    .map(([k, v]) => `${k} = ${v}`)
    .join('\n');

/** Payment-provider integrations: webhook URL, secret, price map, environment. */
export function IntegrationsPage() {
  const list = useLoad(() => api.integrations.all(), []);
  const products = useLoad(() => api.products.all(), []);
  const productName = (id: string) => products.data?.find((p) => p.id === id)?.name ?? id;
  const [provider, setProvider] = useState<CreateIntegrationInput['provider']>('provider_a');
  const [product, setProduct] = useState('');
  const [environment, setEnvironment] = useState<Environment>('live');
  const [secret, setSecret] = useState('');
  const [priceMap, setPriceMap] = useState('');
  const productId = product || products.data?.[0]?.id || '';
  return (
    <>
      <PageHeader title="Integrations" appName={APP_NAME}>
        <p>Connect a payment provider: paste the webhook URL into the provider, save its signing secret here, and map its prices to your plans.</p>
      </PageHeader>
      <Alert kind="error">{list.error?.message}</Alert>
      {settled(list, products) ? <>
      {list.data?.length === 0 ? <p class="empty">No integration yet.</p> : null}
      {(list.data ?? []).map((integration) => (
        <IntegrationCard key={integration.id} integration={integration} productName={productName(integration.product)} onChange={list.reload} />
      ))}
      <Section title="Add an integration">
        <Form
          label="Add an integration"
          submitLabel="Add the integration"
          onSubmit={async () => {
            await api.integrations.create({
              provider,
              product: productId,
              environment,
              ...(secret ? { webhookSecret: secret } : {}),
              priceMap: parsePriceMap(priceMap),
            });
            setSecret('');
            setPriceMap('');
            list.reload();
          }}
        >
          <div class="grid-2">
            <SelectField label="Provider" name="provider" value={provider} onValue={setProvider} options={PROVIDERS} />
            <SelectField label="Product" name="product" required value={productId} onValue={setProduct} options={(products.data ?? []).map((p) => ({ value: p.id, label: p.name }))} />
            <SelectField label="Environment" name="environment" value={environment} onValue={setEnvironment} options={ENVIRONMENTS} />
            <TextField label="Webhook signing secret" name="webhookSecret" type="password" autoComplete="off" hint="From the provider; can be added later (webhooks are refused until then)" value={secret} onValue={setSecret} />
          </div>
          <TextAreaField label="Price map" name="priceMap" hint="One line per price or variant ID: pri_123 = pro" spellcheck={false} value={priceMap} onValue={setPriceMap} />
        </Form>
      </Section>
      </> : null}
    </>
  );
}

function IntegrationCard({ integration: i, productName, onChange }: { integration: IntegrationWithUrl; productName: string; onChange: () => void }) {
  const [secret, setSecret] = useState('');
  const [environment, setEnvironment] = useState<Environment>(i.environment);
  const [priceMap, setPriceMap] = useState(formatPriceMap(i.priceMap));
  const [apiKey, setApiKey] = useState('');
  const [notice, setNotice] = useState<string | null>(null);
  const save = async (patch: UpdateIntegrationInput, done: string) => {
    await api.integrations.update(i.id, patch);
    setNotice(done);
    onChange();
  };
  return (
    <Section title={`${i.provider} · ${productName} · ${i.environment}`} id={i.id}>
      <Facts
        items={[
          ['Signing secret', i.hasWebhookSecret ? <Badge tone="good">saved</Badge> : <Badge tone="warn">missing: webhooks are refused</Badge>],
          ...(i.provider === 'provider_a' ? ([['Customer lookup API key', i.hasApiKey ? 'saved' : 'none']] as [string, string][]) : []),
          ['Integration ID', <Id value={i.id} what="integration ID" />, 'wide'],
        ]}
      />
      <IntegrationWarnings warnings={i.warnings} />
      <h3>Webhook URL</h3>
      <CopyField value={i.webhookUrl} what="webhook URL" address />
      <p>
        <a href={href('integrations', i.id, 'deliveries')}>Incoming deliveries</a>: what the provider sent to this URL, and why any was refused.
      </p>
      <Alert kind="success">{notice}</Alert>
      <div class="grid-2">
        <Form label="Set the signing secret" submitLabel="Save the secret" variant="secondary" onSubmit={() => save({ webhookSecret: secret }, 'The signing secret is saved.').then(() => setSecret(''))}>
          <TextField label="New signing secret" name="webhookSecret" type="password" autoComplete="off" required value={secret} onValue={setSecret} />
        </Form>
        <Form label="Environment" submitLabel="Save the environment" variant="secondary" onSubmit={() => save({ environment }, 'The environment is saved.')}>
          <SelectField label="Environment" name="environment" value={environment} onValue={setEnvironment} options={ENVIRONMENTS} />
        </Form>
      </div>
      <Form label="Price map" submitLabel="Save the price map" variant="secondary" onSubmit={() => save({ priceMap: parsePriceMap(priceMap) }, 'The price map is saved.')}>
        <TextAreaField label="Price map" name="priceMap" hint="One line per price or variant ID: pri_123 = pro. Replaces the whole map." spellcheck={false} value={priceMap} onValue={setPriceMap} />
      </Form>
      {i.provider === 'provider_a' ? (
        <Form label="Customer lookup API key" submitLabel="Save the API key" variant="secondary" onSubmit={() => save({ apiKey: apiKey || null }, apiKey ? 'The API key is saved.' : 'The API key is removed.').then(() => setApiKey(''))}>
          <TextField label="provider_a API key (read customers only)" name="apiKey" type="password" autoComplete="off" hint="Empty removes it" value={apiKey} onValue={setApiKey} />
        </Form>
      ) : null}
      <div class="actions section-actions">
        <ConfirmButton
          label="Delete the integration"
          title="Delete this integration?"
          confirmLabel="Delete"
          onConfirm={async () => {
            await api.integrations.remove(i.id);
            onChange();
          }}
        >
          <p>Webhooks sent to its URL are answered 404 from now on. Licenses already created stay.</p>
        </ConfirmButton>
      </div>
    </Section>
  );
}
