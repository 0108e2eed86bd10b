import type { CampaignMail } from './campaign-mailer-port.ts';

/**
 * The configuration sets campaign mail is sent with: the stack's (every feedback event) and the
 * campaign one (no deliveries), both untracked, and their tracked twins, which add SES's open
 * and click events ([engagement.tracking]). A function without the tracked ones (the planner
 * asks SES for its quota only) never sends tracked mail.
 */
export interface CampaignConfigurationSets {
  readonly withDeliveries: string;
  readonly withoutDeliveries: string;
  readonly trackedWithDeliveries?: string;
  readonly trackedWithoutDeliveries?: string;
}

/**
 * The set one mail names: with deliveries only where a delivery matters
 * ([campaign.feedback-cost]), tracked only when the mail asks for it. SES tracks every mail of
 * a set with open and click events, so the choice of set is what turns tracking on or off.
 */
export function configurationSetOf(
  mail: Pick<CampaignMail, 'reportDelivery' | 'track'>,
  sets: CampaignConfigurationSets,
): string {
  if (mail.track) {
    const tracked = mail.reportDelivery
      ? sets.trackedWithDeliveries
      : sets.trackedWithoutDeliveries;
    if (tracked === undefined) throw new Error('tracked campaign mail needs the tracked sets');
    return tracked;
  }
  return mail.reportDelivery ? sets.withDeliveries : sets.withoutDeliveries;
}
