import type { CampaignFields } from '../../adapters/store/campaign-store-port.ts';
import type { CampaignRecord, PauseReason } from '../../domain/campaign/campaign.ts';
import type { CampaignDependencies } from './campaign-dependencies.ts';
import { passTheTurn } from './campaign-turns.ts';

/**
 * Ends a run whose every recipient is settled: the issue becomes `sent` (listed to keyless
 * callers unless private), once, whoever notices first ([campaign.complete]). Whether it is
 * listed is decided on the privacy the write expects: one made private after the caller's read
 * is read again and ended unlisted ([campaign.private-race]). A campaign waiting for its turn
 * then starts ([campaign.overlap]).
 */
export async function completeRun(
  deps: CampaignDependencies,
  campaign: CampaignRecord,
  /** Counts recounted from the records, written in the same write that ends the run. */
  counts: Partial<
    Pick<CampaignFields, 'total' | 'sent' | 'skipped' | 'failed' | 'recounted_at'>
  > = {},
): Promise<CampaignRecord | undefined> {
  let current = campaign;
  for (;;) {
    const done = await deps.campaigns.updateCampaign(current.id, {
      expect: { statuses: ['sending'], run: current.run, private: current.private },
      set: { ...counts, status: 'sent', sent_at: deps.now().toISOString() },
      remove: ['pause_reason', 'recount'],
      listPublicly: !current.private,
    });
    if (done) {
      deps.log.info('campaign_sent', {
        newsletter_id: done.id,
        run: done.run,
        total: done.total,
        sent: done.sent,
        skipped: done.skipped,
        failed: done.failed,
      });
      await passTheTurn(deps);
      return done;
    }
    const now = await deps.campaigns.getCampaign(current.id);
    // Only a privacy edit is worth another write: one that moved the status or the run on
    // (another ended it, a pause, a cancel, a restart) refuses the next write as well.
    if (now === undefined || now.private === current.private) return undefined;
    current = now;
  }
}

/**
 * Pauses a sending campaign on its own ([campaign.auto-pause], [campaign.quota],
 * [campaign.account-refusal]): after too many failed sends in a row, when the account's daily
 * quota is used up, or when SES refuses the account or the sender. Nobody is counted failed for
 * the last two; the alarm on CampaignsAutoPaused tells the operator. A campaign paused for the
 * quota goes on by itself once SES has room again (the sweeper asks); any other is resumed by
 * the operator once the cause is gone.
 */
export async function pauseCampaign(
  deps: CampaignDependencies,
  campaign: CampaignRecord,
  reason: Exclude<PauseReason, 'operator'>,
): Promise<void> {
  const paused = await deps.campaigns.updateCampaign(campaign.id, {
    expect: { statuses: ['sending'], run: campaign.run },
    set: {
      status: 'paused',
      pause_reason: reason,
      ...(reason === 'quota' ? { quota_checked_at: deps.now().toISOString() } : {}),
    },
  });
  if (!paused) return;
  deps.metrics.count('CampaignsAutoPaused', 1, { newsletter: String(campaign.id) });
  deps.log.error('campaign_auto_paused', {
    newsletter_id: campaign.id,
    reason,
    consecutive_failures: campaign.consecutive_failures,
  });
  await passTheTurn(deps);
}
