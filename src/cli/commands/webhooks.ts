/**
 * Webhook subscriptions: thin commands over the operations
 * (src/use-cases/webhooks.ts), as /admin/v1/webhooks is. A secret is printed
 * once, by `webhooks create` and `webhooks rotate-secret`; lists never show
 * one. URLs pass the target policy of MDS_WEBHOOK_ALLOW_HTTP and
 * MDS_WEBHOOK_ALLOW_PRIVATE, read as `mds serve` reads them.
 */
import { AdminError } from '../../access/admin-error.js';
import { setting } from '../../config.js';
import type { AlertFilter } from '../../domain/webhooks.js';
import type { Result } from '../../use-cases/contract.js';
import {
  createWebhook,
  deleteWebhook,
  listWebhookDeliveries,
  listWebhooks,
  redeliverWebhook,
  rotateWebhookSecret,
  updateWebhook,
  type WebhookOptions,
} from '../../use-cases/webhooks.js';
import type { Command, OptionSpec } from '../command.js';
import { cliActor, everything, list, outcome, str, wholeNumber } from '../operation.js';
import { table } from '../output.js';
import { withStore } from '../with-store.js';

const ONCE = 'This is the only time the secret is shown. Store it now.';
const FILTER = ['metric', 'currency', 'source', 'side', 'above', 'below'] as const;
const FILTER_USAGE = '[--metric rate|premium --currency C [--source S] --side buy|sell --above N|--below N]';
const filterOptions = Object.fromEntries(FILTER.map((f) => [f, { type: 'string' }])) as Record<
  string,
  OptionSpec
>;

/** The option that gives each field, in a refusal (the operations name the admin API's fields). */
const OPTION_OF: Record<string, string> = {
  url: '--url',
  eventTypes: '--events',
  description: '--description',
  accountId: '--account',
};

function answered<T>(result: Result<T>): T {
  if (!result.ok && result.error.kind === 'invalid') {
    const { field, message } = result.error;
    // The filter's problems name its fields (`filter.source`): the options here.
    if (field === 'filter') throw new AdminError(`filter: ${message.replace(/\bfilter\.(\w+)/g, '--$1')}`);
    if (field.startsWith('filter.')) throw new AdminError(`--${field.slice(7)}: ${message}`);
    // An item of a list (`eventTypes.1`) is its option's.
    const option = OPTION_OF[field.split('.')[0]!];
    if (option !== undefined) throw new AdminError(`${option}: ${message}`);
  }
  return outcome(result);
}

const flag = (name: 'MDS_WEBHOOK_ALLOW_HTTP' | 'MDS_WEBHOOK_ALLOW_PRIVATE') =>
  ['1', 'true'].includes(setting(name));
const options = (): WebhookOptions => ({
  policy: { allowHttp: flag('MDS_WEBHOOK_ALLOW_HTTP'), allowPrivate: flag('MDS_WEBHOOK_ALLOW_PRIVATE') },
});

/** The filter the options give, or undefined when none of its options is given. */
function filterOf(values: Record<string, unknown>): AlertFilter | undefined {
  if (!FILTER.some((f) => values[f] !== undefined)) return undefined;
  return Object.fromEntries(
    FILTER.filter((f) => values[f] !== undefined).map((f) => [f, values[f]]),
  ) as unknown as AlertFilter;
}

export const webhookCommands: Command[] = [
  {
    name: ['webhooks', 'create'],
    usage: `webhooks create --url URL --events A,B [--account ID] [--description D] ${FILTER_USAGE}`,
    options: {
      url: { type: 'string' },
      events: { type: 'string' },
      account: { type: 'string' },
      description: { type: 'string' },
      ...filterOptions,
    },
    async run({ values, out, databaseUrl }) {
      const input = {
        url: str(values.url)!,
        eventTypes: list(values.events) ?? [],
        accountId: str(values.account),
        description: str(values.description),
        filter: filterOf(values),
      };
      const created = await withStore(databaseUrl, async (s) =>
        answered(await createWebhook(s, cliActor(), input, options())),
      );
      out.result(created, [created.secret, '', ONCE, `The subscription: ${created.id}`]);
    },
  },
  {
    name: ['webhooks', 'update'],
    usage:
      'webhooks update ID [--url URL] [--events A,B] [--account ID|--no-account] [--description D] ' +
      `[--enable|--disable] ${FILTER_USAGE}|--no-filter`,
    options: {
      url: { type: 'string' },
      events: { type: 'string' },
      account: { type: 'string' },
      'no-account': { type: 'boolean' },
      description: { type: 'string' },
      enable: { type: 'boolean' },
      disable: { type: 'boolean' },
      'no-filter': { type: 'boolean' },
      ...filterOptions,
    },
    positionals: { min: 1, max: 1 },
    async run({ values, positionals, out, databaseUrl }) {
      if (values.enable && values.disable) throw new AdminError('give --enable or --disable, not both');
      const filter = values['no-filter'] ? null : filterOf(values);
      const input = {
        id: positionals[0]!,
        url: str(values.url),
        eventTypes: list(values.events),
        accountId: values['no-account'] ? null : str(values.account),
        // An empty --description clears it, as null does in the admin API.
        description: values.description === '' ? null : str(values.description),
        filter,
        enabled: values.enable ? true : values.disable ? false : undefined,
      };
      if (Object.values(input).filter((v) => v !== undefined).length === 1)
        throw new AdminError('nothing to change: give at least one option');
      const updated = await withStore(databaseUrl, async (s) =>
        answered(await updateWebhook(s, cliActor(), input, options())),
      );
      out.result(
        updated,
        `${updated.id}: ${updated.status}${updated.disabledReason ? ` (${updated.disabledReason})` : ''}`,
      );
    },
  },
  {
    name: ['webhooks', 'list'],
    usage: 'webhooks list [--account ID]',
    options: { account: { type: 'string' } },
    async run({ values, out, databaseUrl }) {
      const webhooks = await withStore(databaseUrl, (s) =>
        everything((cursor) =>
          listWebhooks(s, cliActor(), { accountId: str(values.account), cursor, limit: 1000 }),
        ),
      );
      out.result(
        { webhooks },
        table(
          ['ID', 'URL', 'EVENTS', 'ACCOUNT', 'STATUS', 'CREATED'],
          webhooks.map((w) => [
            w.id,
            w.url,
            w.eventTypes.join(','),
            w.accountId ?? '-',
            w.status,
            w.createdAt,
          ]),
        ),
      );
    },
  },
  {
    name: ['webhooks', 'delete'],
    usage: 'webhooks delete ID',
    positionals: { min: 1, max: 1 },
    async run({ positionals, out, databaseUrl }) {
      const deleted = await withStore(databaseUrl, async (s) =>
        answered(await deleteWebhook(s, cliActor(), { id: positionals[0]! })),
      );
      out.result(deleted, `${deleted.id}: deleted`);
    },
  },
  {
    name: ['webhooks', 'rotate-secret'],
    usage: 'webhooks rotate-secret ID   (the old secret signs too for 24 hours)',
    positionals: { min: 1, max: 1 },
    async run({ positionals, out, databaseUrl }) {
      const rotated = await withStore(databaseUrl, async (s) =>
        answered(await rotateWebhookSecret(s, cliActor(), { id: positionals[0]! })),
      );
      out.result(rotated, [
        rotated.secret,
        '',
        ONCE,
        `The old secret keeps signing until ${rotated.previousSecretExpiresAt}.`,
      ]);
    },
  },
  {
    name: ['webhooks', 'deliveries'],
    usage: 'webhooks deliveries ID [--limit N]',
    options: { limit: { type: 'string' } },
    positionals: { min: 1, max: 1 },
    async run({ values, positionals, out, databaseUrl }) {
      const page = await withStore(databaseUrl, async (s) =>
        answered(
          await listWebhookDeliveries(s, cliActor(), {
            id: positionals[0]!,
            limit: wholeNumber(values.limit) ?? 20,
          }),
        ),
      );
      const deliveries = page.items;
      out.result(
        { deliveries },
        table(
          ['ID', 'EVENT', 'TYPE', 'STATUS', 'ATTEMPTS', 'LAST', 'NEXT ATTEMPT', 'CREATED'],
          deliveries.map((d) => [
            d.id,
            d.eventId,
            d.eventType,
            d.status,
            String(d.attempts),
            d.lastStatus === null ? (d.lastError ?? '-') : String(d.lastStatus),
            d.nextAttemptAt ?? '-',
            d.createdAt,
          ]),
        ),
      );
    },
  },
  {
    name: ['webhooks', 'redeliver'],
    usage: 'webhooks redeliver ID DELIVERY_ID',
    positionals: { min: 2, max: 2 },
    async run({ positionals, out, databaseUrl }) {
      const delivery = await withStore(databaseUrl, async (s) =>
        answered(await redeliverWebhook(s, cliActor(), { id: positionals[0]!, deliveryId: positionals[1]! })),
      );
      out.result(delivery, `${delivery.id}: queued again`);
    },
  },
];
