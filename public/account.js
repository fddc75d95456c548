/*
 * "Your key": the plan and the month's quota from /v1/me and the quota headers,
 * the one message when the key is refused, and the one line naming what the key
 * may not read (the panels it folds).
 */
import { explain, isDenied, keyAccepted } from './api.js';
import { $, count, instant, list, t } from './format.js';
import { lacking, state } from './state.js';

export function renderAccount() {
  const me = state.me;
  if (!me) return;
  // Without `usage:read` the "not shown" line says so; any other failure is the page's one message.
  $('me-message').textContent = me.ok || isDenied(me) ? '' : explain(me, 'what.me');
  const usage = me.ok ? me.body.data.usage : null;
  $('me').hidden = !keyAccepted(me) || (!usage && !state.quota);
  $('me-plan').textContent = me.ok ? me.body.data.grant.plan : t('planHidden');
  const remaining = state.quota?.remaining ?? usage?.requestsRemaining;
  $('me-remaining').textContent =
    remaining === undefined
      ? t('unknown')
      : usage
        ? t('remainingOf', { remaining: count(remaining), limit: count(usage.requestLimit) })
        : t('remainingOnly', { remaining: count(remaining) });
  const reset = state.quota?.reset ?? usage?.resetAt;
  $('me-reset').textContent = reset ? instant(reset) : t('unknown');
  if (reset) $('me-reset').dataset.value = reset;
}

/** One line for every panel the key may not read; empty when it may read them all. */
export function renderLacks() {
  const line = $('lacks');
  const missing = keyAccepted(state.me) ? lacking() : [];
  line.hidden = missing.length === 0;
  line.dataset.entitlements = missing.flatMap((m) => m.entitlements).join(',');
  if (missing.length === 0) {
    line.textContent = '';
    return;
  }
  const items = missing.map((m) =>
    t('lacksItem', { what: t(m.what), entitlements: m.entitlements.join(', ') }),
  );
  const plan = state.me.ok ? state.me.body.data.grant.plan : null;
  line.textContent = plan ? t('lacks', { plan, list: list(items) }) : t('lacksNoPlan', { list: list(items) });
}
