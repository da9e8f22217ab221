/** Formatting shared by the dashboard and the views; locale-aware, never throws on null. */

const dateTime = /* @__PURE__ */ new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function formatWhen(iso: string | null | undefined): string {
  if (!iso) return '—';
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? iso : dateTime.format(ms);
}

export const formatNumber = (n: number | null | undefined): string => (n == null ? '—' : n.toLocaleString());

export const formatRate = (rate: number | null | undefined): string => (rate == null ? '—' : `${rate.toFixed(1)}%`);

const STATUS_LABELS: Record<string, string> = {
  DRAFT: 'Draft',
  PREPARING: 'Preparing',
  PENDING: 'Finding leads',
  READY_TO_SEND: 'Ready to send',
  CAMPAIGN_IN_PROGRESS: 'Running',
  CAMPAIGN_PAUSED: 'Paused',
  COMPLETED: 'Completed',
  DONE: 'Done',
  FAILED: 'Failed',
};
export const campaignStatusLabel = (status: string): string => STATUS_LABELS[status] ?? status;

const ACTIVITY_LABELS: Record<string, string> = {
  connection_request_sent: 'Connection request sent',
  connection_accepted: 'Connection accepted',
  message_sent: 'Message sent',
  reply_received: 'Reply received',
  agent_replied: 'Agent replied',
  cta_sent: 'Call to action sent',
  agent_handed_off: 'Handed off to you',
};
export const activityLabel = (type: string): string => ACTIVITY_LABELS[type] ?? type.replace(/_/g, ' ');
