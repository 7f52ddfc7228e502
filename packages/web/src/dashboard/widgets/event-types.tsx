import { useId } from 'preact/hooks';
import { CheckboxField } from '../../ui/components/field.js';
import type { WebhookEventType } from '../../ui/types.js';
import { EVENT_TYPES, EVENT_TYPE_LABEL } from '../notification-names.js';

/**
 * The event types a webhook endpoint receives: every type (an empty list, which also covers types
 * added later), or the ones ticked. A fieldset of native checkboxes, so it reads as one question.
 */
export function EventTypesField({ value, onValue }: { value: readonly WebhookEventType[] | null; onValue: (types: WebhookEventType[] | null) => void }) {
  const id = useId();
  const all = value === null;
  const toggle = (type: WebhookEventType, on: boolean) => {
    const chosen = new Set(value ?? []);
    if (on) chosen.add(type);
    else chosen.delete(type);
    onValue(EVENT_TYPES.filter((t) => chosen.has(t)));
  };
  return (
    <fieldset class="choices" aria-describedby={`${id}-hint`}>
      <legend>Events</legend>
      <p class="hint" id={`${id}-hint`}>
        Which events are sent to this endpoint.
      </p>
      <CheckboxField label="Every event, including types added later" checked={all} onChecked={(on) => onValue(on ? null : [])} />
      {all ? null : (
        <ul class="choice-list">
          {EVENT_TYPES.map((type) => (
            <li key={type}>
              <CheckboxField
                label={
                  <>
                    <code>{type}</code>: {EVENT_TYPE_LABEL[type]}
                  </>
                }
                checked={value.includes(type)}
                onChecked={(on) => toggle(type, on)}
              />
            </li>
          ))}
        </ul>
      )}
    </fieldset>
  );
}
