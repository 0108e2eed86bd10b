/**
 * What a resume leaves in the campaign's record and answers (shared/operations/campaign/
 * restart-work.ts) after either kind of pause, against DynamoDB Local.
 */
import { expect, it } from 'vitest';
import { isNewsletterError } from '../../shared/domain/errors.ts';
import {
  pauseNewsletter,
  resumeNewsletter,
} from '../../shared/operations/campaign/control-campaign.ts';
import { pauseCampaign } from '../../shared/operations/campaign/finish-run.ts';
import { campaignWorld, started } from '../support/campaign-world.ts';

it('[campaign.resume] a resumed campaign no longer says why it was paused, whether failures or the operator paused it', async () => {
  // Arrange
  const world = await campaignWorld();
  await world.subscribe(1);
  const issue = await world.issue();
  await started(world, issue.id);
  const reasons: unknown[] = [];
  // Act
  await pauseCampaign(world.deps, await world.campaign(issue.id), 'failures');
  reasons.push((await world.campaign(issue.id)).pause_reason);
  const afterFailures = await resumeNewsletter(world.deps, issue.id);
  await pauseNewsletter(world.deps, issue.id);
  reasons.push((await world.campaign(issue.id)).pause_reason);
  const afterOperator = await resumeNewsletter(world.deps, issue.id);
  // Assert
  expect(reasons).toEqual(['failures', 'operator']);
  for (const resumed of [afterFailures, afterOperator]) {
    expect(!isNewsletterError(resumed) && resumed.status).toBe('sending');
    expect(resumed).not.toHaveProperty('pause_reason');
  }
  expect(await world.campaign(issue.id)).not.toHaveProperty('pause_reason');
});
