import { useIsOwner } from '../context.js';

/**
 * Said next to an owner-only action when a member is signed in. The action stays visible: the API
 * decides, and its refusal (`403 forbidden`) is shown as it comes.
 */
export function OwnerOnlyNote({ what }: { what: string }) {
  if (useIsOwner()) return null;
  return <p class="hint owner-only">Only the account owner can {what}; you are signed in as a member.</p>;
}
