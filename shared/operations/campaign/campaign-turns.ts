import type { CampaignRecord } from '../../domain/campaign/campaign.ts';
import type { CampaignDependencies } from './campaign-dependencies.ts';
import { queueWork } from './restart-work.ts';

/** Sending campaigns looked at when deciding turns: as many as the sweeper watches. */
const TURN_LIMIT = 100;

/** Whether a send or a resume waits for its turn, and the other campaigns sending meanwhile. */
export interface Turn {
  readonly wait: boolean;
  /** The other campaigns sending (at work or waiting), newest first. */
  readonly others: readonly number[];
}

/**
 * Whether a send (or a resume) of `id` starting now waits for its turn ([campaign.overlap]):
 * the settings say `wait`, and another campaign is sending (at work, or waiting itself: turns
 * go in the order the sends were asked for). The others are read either way: a send that
 * shares the rate says with whom.
 */
export async function turnOf(
  deps: Pick<CampaignDependencies, 'campaigns' | 'settings'>,
  id: number,
): Promise<Turn> {
  const sending = await deps.campaigns.campaignsWithStatus(['sending'], TURN_LIMIT);
  const others = sending.filter((other) => other !== id);
  const wait = others.length > 0 && (await deps.settings()).campaign.overlap === 'wait';
  return { wait, others };
}

/**
 * Starts the next turn when the settings say `wait` (startNextTurns): what a run that ends or
 * pauses itself does, so that the next campaign need not wait for the sweeper.
 */
export async function passTheTurn(deps: CampaignDependencies): Promise<void> {
  if ((await deps.settings()).campaign.overlap === 'wait') await startNextTurns(deps);
}

/**
 * Starts the campaigns whose turn has come ([campaign.overlap]): with `wait`, the one waiting
 * longest once no campaign is at work; with `share` (the settings changed meanwhile), every one
 * waiting. Starting is one conditional write that expects it still waiting, so two callers at
 * once start it once; then its work is queued. Called whenever a campaign stops sending (its run
 * ends, a pause, a cancel) and by the sweeper every minute. The campaigns started.
 */
export async function startNextTurns(deps: CampaignDependencies): Promise<CampaignRecord[]> {
  const ids = await deps.campaigns.campaignsWithStatus(['sending'], TURN_LIMIT);
  if (ids.length === 0) return [];
  const sending = (await Promise.all(ids.map((id) => deps.campaigns.getCampaign(id)))).filter(
    (campaign): campaign is CampaignRecord => campaign?.status === 'sending',
  );
  const waiting = sending
    .filter((campaign) => campaign.waiting_since !== undefined)
    .sort((a, b) => (a.waiting_since ?? '').localeCompare(b.waiting_since ?? '') || a.id - b.id);
  if (waiting.length === 0) return [];
  const share = (await deps.settings()).campaign.overlap !== 'wait';
  if (!share && sending.some((campaign) => campaign.waiting_since === undefined)) return [];
  const started: CampaignRecord[] = [];
  for (const campaign of share ? waiting : waiting.slice(0, 1)) {
    const now = deps.now().toISOString();
    const turn = await deps.campaigns.updateCampaign(campaign.id, {
      expect: { statuses: ['sending'], run: campaign.run, waiting: true },
      // Its stall and repair clocks start now, not when it began to wait.
      set: { active_at: now, progress_at: now },
      remove: ['waiting_since'],
    });
    if (!turn) continue;
    deps.log.info('campaign_turn', {
      newsletter_id: turn.id,
      run: turn.run,
      waited_since: campaign.waiting_since ?? null,
    });
    await queueWork(deps, turn);
    started.push(turn);
  }
  return started;
}
