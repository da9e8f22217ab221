import type { WorkingHours } from './hours.js';

/** The account-safety rules a server runs with (resolved from the config's `engine` section). */
export interface SafetySettings {
  /** The default window of every account; null sends at any hour. */
  workingHours: WorkingHours | null;
  timeZone: string;
  jitterMinutes: number;
  weeklyConnectionRequestLimit: number;
  /** The curve, and `onConnect`: whether connect_account starts a warm-up when its call does not say. */
  warmUp: { days: number; connectionRequestsStart: number; messagesStart: number; onConnect: boolean };
  /** Where the warm-up (same days) starts the daily profile-visit and post-reaction limits. */
  actionsWarmUp: { profileVisitsStart: number; postReactionsStart: number };
  withdrawStaleInvitations: boolean;
}
