import type { WorkingHours } from './hours.js';

/** The account-safety rules a server runs with (resolved from the config's `engine` section). */
export interface SafetySettings {
  /** The default window of every account; null sends at any hour. */
  workingHours: WorkingHours | null;
  timeZone: string;
  jitterMinutes: number;
  weeklyConnectionRequestLimit: number;
  warmUp: { days: number; connectionRequestsStart: number; messagesStart: number };
  withdrawStaleInvitations: boolean;
}
