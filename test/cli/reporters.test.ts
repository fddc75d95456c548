/**
 * `mds organisations` and `mds reporters` over the same operations as the
 * admin API (docs/decisions.md 108): the token printed once, by create and
 * roll, never by list; refusals naming the option and the fix.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, freshDatabase } from '../support/backends.js';
import { mdsInProcess } from '../support/cli.js';

describe('mds organisations and reporters', () => {
  let db: Database;
  const run = (args: string[]) => mdsInProcess(args, { db: db.url });

  beforeAll(async () => {
    db = await freshDatabase('sqlite');
    const store = db.open();
    await store.migrate();
    await store.close();
    expect((await run(['seed', 'sample', '--days', '1'])).status).toBe(0);
  });
  afterAll(async () => db?.drop());

  it('creates an organisation and a reporter, lists, suspends, rolls and removes it', async () => {
    const org = (await run(['organisations', 'create', '--name', 'Square Port Said', '--json'])).json()
      .organisation;
    expect(org.id).toMatch(/^org_/);
    const created = await run([
      'reporters',
      'create',
      '--organisation',
      org.id,
      '--label',
      'Desk 1',
      '--markets',
      'EUR, USD,21K',
    ]);
    expect(created.status, created.stderr).toBe(0);
    const [token] = created.stdout.split('\n');
    expect(token).toMatch(/^mdsrep_/);
    expect(created.stdout).toContain('This is the only time the token is shown');

    const listed = await run(['reporters', 'list', '--json']);
    const [reporter] = listed.json().reporters;
    expect(reporter).toMatchObject({
      organisationId: org.id,
      markets: ['EUR', 'USD', '21K'],
      status: 'active',
    });
    expect(listed.stdout).not.toContain('mdsrep_');
    expect((await run(['organisations', 'list'])).stdout).toContain('Square Port Said');

    expect((await run(['reporters', 'suspend', reporter.id])).stdout.trim()).toBe(
      `${reporter.id}: suspended`,
    );
    expect((await run(['reporters', 'activate', reporter.id])).stdout.trim()).toBe(`${reporter.id}: active`);
    const rolled = await run(['reporters', 'roll', reporter.id, '--grace-period', '60', '--json']);
    expect(rolled.json().token).toMatch(/^mdsrep_/);
    expect(rolled.json().token).not.toBe(token);
    expect((await run(['reporters', 'remove', reporter.id])).stdout.trim()).toBe(`${reporter.id}: removed`);
    const again = await run(['reporters', 'activate', reporter.id]);
    expect(again.status).toBe(2);
    expect(again.stderr).toContain('was removed; create a new one');
  });

  it('refuses with the option named and the fix', async () => {
    const market = await run([
      'reporters',
      'create',
      '--organisation',
      'org_x',
      '--label',
      'x',
      '--markets',
      'eur',
    ]);
    expect(market.status).toBe(2);
    expect(market.stderr).toContain(
      '--markets: must be a currency code such as EUR, or one of 18K, 21K, 24K',
    );
    const org = await run([
      'reporters',
      'create',
      '--organisation',
      'org_x',
      '--label',
      'x',
      '--markets',
      'EUR',
    ]);
    expect(org.stderr).toContain(
      '--organisation: no organisation "org_x": create it first (mds organisations create)',
    );
    const label = await run(['organisations', 'create', '--name', ' ']);
    expect(label.stderr).toContain('--name: must be 1 to 200 characters, not blank');
  });
});
