/**
 * Versioned migrations: one history for both dialects, one file per migration,
 * named so that the files sort in the order they run. Kysely's schema builder
 * emits the right DDL for each; where the dialects must differ, the migration
 * says so. Each is recorded under its name below (the key), which never
 * changes: a deployed store knows its migrations by those names. Never edit a
 * released migration: add the next file and its line here.
 */
import type { Migration, MigrationProvider } from 'kysely';
import { marketDataMigration } from './0001-market-data.js';
import { accessMigration } from './0002-access.js';
import { minuteUsageMigration } from './0003-minute-usage.js';
import { importsAndRevisionsMigration } from './0004-imports-and-revisions.js';
import { usageFileMigration } from './0005-usage-file.js';
import { operatorMigration } from './0006-operator.js';
import { usageMigration } from './0007-usage-batches-daily.js';
import { webhooksMigration } from './0008-webhooks.js';
import { consumeMigration } from './0009-consume-function.js';
import { consumeRowUpdatesMigration } from './0010-consume-row-updates.js';
import { ratesAssetCheckMigration } from './0011-rates-asset-check.js';
import { webhookQueuesMigration } from './0012-webhook-queues.js';
import { sealedIdempotentAnswersMigration } from './0013-sealed-idempotent-answers.js';
import { retractionsMigration } from './0014-retractions.js';
import { reportersMigration } from './0015-reporters.js';
import { quoteEffectiveInstantMigration } from './0016-quote-effective-instant.js';

export const migrations: Record<string, Migration> = {
  '0001_market_data': marketDataMigration,
  '0002_access': accessMigration,
  '0003_minute_usage': minuteUsageMigration,
  '0004_imports_and_revisions': importsAndRevisionsMigration,
  '0005_usage_file': usageFileMigration,
  '0006_operator': operatorMigration,
  '0007_usage_batches_daily': usageMigration,
  '0008_webhooks': webhooksMigration,
  '0009_consume_function': consumeMigration,
  '0010_consume_row_updates': consumeRowUpdatesMigration,
  '0011_rates_asset_check': ratesAssetCheckMigration,
  '0012_webhook_queues': webhookQueuesMigration,
  '0013_sealed_idempotent_answers': sealedIdempotentAnswersMigration,
  '0014_retractions': retractionsMigration,
  '0015_reporters': reportersMigration,
  '0016_quote_effective_instant': quoteEffectiveInstantMigration,
};

export const migrationProvider: MigrationProvider = {
  async getMigrations() {
    return migrations;
  },
};
