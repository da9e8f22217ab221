import { useMemo } from 'react';
import { formatNumber, formatRate } from '../format.js';
import { useTool } from '../hooks.js';
import { useOffered } from '../offered.js';
import { branchLabel, conditionLabel, formatHours, type PlacedStep, placeSteps, rateOf, skipReasonLabel, stepKindLabel } from '../steps.js';
import type { AgentStep, StepStats } from '../types.js';
import { EmptyState } from './EmptyState.js';
import { ErrorNote, Loading } from './Feedback.js';
import { Untrusted } from './Untrusted.js';
import './steps.css';
import './data.css';

/** Steps whose sending reaches the lead: a reply counts for the last of these before it. */
const REPLY_KINDS = new Set(['invite', 'message', 'inmail', 'email']);
const SNIPPET = 90;

function stepName(kind: string, placed: PlacedStep | undefined): string {
  const step = placed?.step;
  if (step?.kind === 'if') return conditionLabel(step.condition, step.withinHours, step.tags);
  if (step?.kind === 'wait') return `Wait ${formatHours(step.hours)}`;
  return stepKindLabel(kind);
}

/** Where a step sits, for one inside a branch: "in step 2, accepted within 7 days". */
function placeOf(placed: PlacedStep | undefined, path: string): string | null {
  if (placed?.parent) {
    const { step, number, branch } = placed.parent;
    const label = branchLabel(step.condition, step.withinHours, branch, step.tags);
    return `In step ${number}, ${label.charAt(0).toLowerCase()}${label.slice(1)}`;
  }
  const m = /\.(then|else)\[\d+\]$/.exec(path);
  return m ? `In the ${m[1]} branch of ${path.slice(0, m.index)}` : null;
}

/** The text a variant sends (a note, a message, an InMail's subject), cut short: the operator compares them by it. */
function variantSnippet(step: AgentStep | undefined, variant: string): string | null {
  if (!step) return null;
  const index = variant.charCodeAt(0) - 65;
  let text: string | null | undefined;
  if (step.kind === 'invite') text = index === 0 ? step.note : step.variants?.[index - 1]?.note;
  else if (step.kind === 'message') text = index === 0 ? step.text : step.variants?.[index - 1]?.text;
  else if (step.kind === 'inmail') text = step.subject;
  // An email's variants differ by text, and by subject when they give one: the subject reads first.
  else if (step.kind === 'email') {
    const v = index === 0 ? step : step.variants?.[index - 1];
    text = v ? `${v.subject ?? step.subject} · ${v.text}` : undefined;
  }
  if (text === undefined) return null;
  if (text === null) return step.kind === 'invite' ? '(no note)' : null;
  return text.length > SNIPPET ? `${text.slice(0, SNIPPET - 1)}…` : text;
}

function RateCell({ count, rate, applies }: { count: number; rate: number | null; applies: boolean }) {
  if (!applies) return <span className="o-muted">—</span>;
  return (
    <span className="o-bar-cell">
      <span className="f-count">{formatNumber(count)}</span>
      <span className="o-bar-track" aria-hidden="true">
        {/* Set through the CSSOM, which the dashboard's style-src 'self' allows. */}
        <span className="o-bar o-series-2" style={{ width: `${Math.min(100, Math.max(0, rate ?? 0))}%` }} />
      </span>
      <span className="o-bar-figure">{formatRate(rate)}</span>
    </span>
  );
}

export interface StepFunnelProps {
  agentId: string;
  /** The campaign whose leads are counted; omitted, every campaign of the agent. */
  campaignId?: string;
}

/**
 * The agent's funnel step by step and A/B variant, from get_agent_stats: how often each step
 * was sent (carried out), accepted (invitations), replied to (the last step sent before the
 * reply) and skipped, with the rates against sent. Steps read as in the editor (numbered in
 * order, a branch's steps under their `if`), each variant with the start of its text; where the
 * connection offers get_skip_reasons (the dashboard), why steps were skipped.
 */
export function StepFunnel({ agentId, campaignId }: StepFunnelProps) {
  const { offers } = useOffered();
  const args = campaignId === undefined ? { agentId } : { agentId, campaignId };
  const stats = useTool('get_agent_stats', args, { enabled: offers('get_agent_stats') });
  const agent = useTool('get_agent', { agentId }, { enabled: offers('get_agent') });
  const skips = useTool('get_skip_reasons', args, { enabled: offers('get_skip_reasons') });

  const placed = useMemo(() => new Map(placeSteps(agent.data?.steps ?? []).map((p) => [p.step.id, p])), [agent.data]);
  const reasons = useMemo(() => {
    const out = new Map<string, { reason: string; count: number }[]>();
    for (const s of skips.data?.skips ?? []) {
      const key = `${s.stepId}:${s.variant}`;
      out.set(key, [...(out.get(key) ?? []), { reason: s.reason, count: s.count }]);
    }
    return out;
  }, [skips.data]);

  if (!offers('get_agent_stats')) {
    return <p className="o-muted">The step funnel needs get_agent_stats, which this connection does not offer (it is in the manage tool set).</p>;
  }
  if (stats.error) return <ErrorNote error={stats.error} prefix="Could not load the step funnel" />;
  if (!stats.data) return <Loading label="Loading the step funnel…" />;

  const rows: StepStats[] = stats.data.steps;
  const nothing = rows.every((s) => s.variants.every((v) => v.sent === 0 && v.skipped === 0));
  return (
    <div className="f-funnel">
      {nothing ? (
        <EmptyState title="No step carried out yet.">
          The counts fill in as leads go through the steps: sent, accepted, replied and skipped, per variant.
        </EmptyState>
      ) : null}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a region that scrolls sideways (a view in a narrow chat frame) must take the focus so a keyboard can scroll it (WCAG 2.1.1, axe's scrollable-region-focusable). */}
      <section className="o-table-wrap" tabIndex={0} aria-label="The step funnel, scrolling sideways when narrow">
        <table className="o-table f-table">
          <caption className="sr-only">Each step of the agent and its variants: sent, accepted, replied and skipped</caption>
          <thead>
            <tr>
              <th scope="col">Step</th>
              <th scope="col">Variant</th>
              <th scope="col">Sent</th>
              <th scope="col">Accepted</th>
              <th scope="col">Replied</th>
              <th scope="col">Skipped</th>
            </tr>
          </thead>
          {rows.map((s, i) => {
            const at = placed.get(s.stepId);
            const where = placeOf(at, s.path);
            const depth = Math.min(3, (s.path.match(/\[\d+\]/g) ?? []).length);
            const tested = s.variants.length > 1 || s.kind === 'invite' || s.kind === 'message' || s.kind === 'email';
            return (
              <tbody key={s.stepId} className={`f-depth-${depth}`}>
                {s.variants.map((v, vi) => {
                  const why = reasons.get(`${s.stepId}:${v.variant}`) ?? [];
                  const snippet = variantSnippet(at?.step, v.variant);
                  return (
                    <tr key={v.variant}>
                      {vi === 0 ? (
                        <th scope="rowgroup" rowSpan={s.variants.length} className="f-step">
                          Step {i + 1}: {stepName(s.kind, at)}
                          {where ? <span className="f-where">{where}</span> : null}
                        </th>
                      ) : null}
                      <td className="f-variant">
                        {tested ? <span className="f-letter">{v.variant}</span> : <span className="o-muted">—</span>}
                        {snippet ? (
                          <span className="f-snippet">
                            <Untrusted>{snippet}</Untrusted>
                          </span>
                        ) : null}
                      </td>
                      <td className="f-num">{formatNumber(v.sent)}</td>
                      <td>
                        <RateCell count={v.accepted} rate={rateOf(v.accepted, v.sent)} applies={s.kind === 'invite'} />
                      </td>
                      <td>
                        <RateCell count={v.replied} rate={rateOf(v.replied, v.sent)} applies={REPLY_KINDS.has(s.kind)} />
                      </td>
                      <td>
                        <span className="f-num">{formatNumber(v.skipped)}</span>
                        {why.length > 0 ? (
                          <ul className="f-reasons" aria-label={`Why step ${i + 1}${tested ? ` variant ${v.variant}` : ''} was skipped`}>
                            {why.map((r) => (
                              <li key={r.reason}>
                                {formatNumber(r.count)} · {skipReasonLabel(r.reason)}
                              </li>
                            ))}
                          </ul>
                        ) : null}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            );
          })}
        </table>
      </section>
      <p className="o-hint">
        Sent counts the step carried out (for a visit, a like, a withdrawal, a wait or an if: done or begun). Rates are against sent; a reply counts for the
        last invitation, message or InMail the lead got before it.
      </p>
    </div>
  );
}
