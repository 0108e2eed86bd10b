/**
 * The account's one budget of SES send slots for bulk mail ([campaign.budget]): every campaign
 * sending at once (and, later, every other bulk sender: series, digests) takes its send slots
 * from one time line, so that together they never ask SES for more than the budget's rate,
 * and the rest of the account's rate stays free for activation and welcome mail.
 */
export interface SendBudget {
  /**
   * Reserves `slots` send slots `spacingMs` apart on the account's time line, after every slot
   * any sender reserved before and not before `notBefore`: the time of the first (epoch ms).
   */
  reserve(slots: number, spacingMs: number, notBefore: number): Promise<number>;
}
