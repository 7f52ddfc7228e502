import { defineRoute, type RouteDef } from '../http/route.js';
import { ClaimSenderDomainBody } from '../http/schemas.js';
import { SenderDomainView } from '../http/views.js';

/**
 * The sender domain: read it and check its DNS records with any credential; claim and release
 * only in the account owner's session (they create and delete the DKIM key).
 */
export const senderDomainRoutes: RouteDef[] = [
  defineRoute({
    method: 'GET', path: '/v1/account/sender-domain', api: 'vendor', tag: 'Account',
    summary: 'The sender domain, its status and the DNS records to publish (status none while no domain is claimed)',
    response: SenderDomainView,
    handler: ({ engine, accountId }) => engine.getSenderDomain(accountId),
  }),
  defineRoute({
    method: 'POST', path: '/v1/account/sender-domain', api: 'vendor', tag: 'Account', access: 'owner',
    summary: 'Claim a sender domain (account owner): a DKIM key pair is generated; publish the records, then verify',
    body: ClaimSenderDomainBody, response: SenderDomainView, errors: ['invalid_request', 'conflict'],
    handler: ({ engine, accountId, body, senderDomains }) => engine.claimSenderDomain(accountId, body, { spfMechanism: senderDomains.spfMechanism }),
  }),
  defineRoute({
    method: 'POST', path: '/v1/account/sender-domain/verify', api: 'vendor', tag: 'Account',
    summary: 'Look the DNS records up now and update the status (verified when all three match, else failed); 404 while none is claimed',
    response: SenderDomainView, errors: ['not_found', 'conflict'],
    handler: ({ engine, accountId, senderDomains }) => engine.verifySenderDomain(accountId, senderDomains.resolver),
  }),
  defineRoute({
    method: 'DELETE', path: '/v1/account/sender-domain', api: 'vendor', tag: 'Account', access: 'owner',
    summary: "Release the sender domain (account owner): its DKIM key is deleted and key e-mails go out from the service's sender",
    response: SenderDomainView, errors: ['not_found'],
    handler: ({ engine, accountId }) => engine.releaseSenderDomain(accountId),
  }),
];
