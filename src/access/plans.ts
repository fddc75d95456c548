/**
 * The plan catalogue (config/plans.json, or MDS_PLANS_FILE): default limits and
 * scopes for `mds grants create --plan`. Checked when read, so a typo in the
 * catalogue is an operator error, not a silently wrong grant.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultOf } from '../config/environment.js';
import { isKnownScope } from '../domain/scopes.js';
import { PROJECT_ROOT } from '../paths.js';
import { AdminError } from './admin-error.js';

export interface PlanDefaults {
  monthlyRequestLimit: number;
  requestsPerMinute: number;
  scopes: string[];
}

const DEFAULT_FILE = join(PROJECT_ROOT, defaultOf('MDS_PLANS_FILE'));

/**
 * `file`: MDS_PLANS_FILE, checked by src/config.ts (the CLI passes it). Its
 * declared default names the project's own catalogue, so it is read from the
 * project, whatever folder the process was started in; a path the operator
 * set is read as given (test/docs/commands.test.ts serves from a temp folder).
 */
export function loadPlans(given = DEFAULT_FILE): Map<string, PlanDefaults> {
  const file = given === defaultOf('MDS_PLANS_FILE') ? DEFAULT_FILE : given;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new AdminError(`plan catalogue ${file}: ${(err as Error).message}`);
  }
  const plans = new Map<string, PlanDefaults>();
  for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
    if (name.startsWith('$')) continue;
    const p = value as Partial<PlanDefaults>;
    const ok =
      Number.isSafeInteger(p.monthlyRequestLimit) &&
      p.monthlyRequestLimit! >= 1 &&
      Number.isSafeInteger(p.requestsPerMinute) &&
      p.requestsPerMinute! >= 1 &&
      Array.isArray(p.scopes) &&
      p.scopes.length > 0 &&
      p.scopes.every((s) => typeof s === 'string' && isKnownScope(s));
    if (!ok)
      throw new AdminError(
        `plan catalogue ${file}: plan "${name}" needs monthlyRequestLimit, requestsPerMinute (≥ 1) and known scopes`,
      );
    plans.set(name, {
      monthlyRequestLimit: p.monthlyRequestLimit!,
      requestsPerMinute: p.requestsPerMinute!,
      scopes: [...p.scopes!],
    });
  }
  return plans;
}
