/** Every /v1 operation, in the order the OpenAPI document lists them. Add a new one here. */
import type { Services } from '../../runtime/services.js';
import type { Operation } from '../pipeline/operation.js';
import { assets } from './assets.js';
import { convert } from './convert.js';
import { goldHistory } from './gold-history.js';
import { goldLatest } from './gold-latest.js';
import { me } from './me.js';
import { premium } from './premium.js';
import { premiumHistory } from './premium-history.js';
import { ratesHistory } from './rates-history.js';
import { ratesLatest } from './rates-latest.js';
import { usageDaily } from './usage-daily.js';

export const operations = (services: Services): Operation[] =>
  [
    assets(services),
    ratesLatest(services),
    ...ratesHistory(services),
    convert(services),
    premium(services),
    premiumHistory(services),
    goldLatest(services),
    goldHistory(services),
    me(services),
    usageDaily(services),
  ] as Operation[];
