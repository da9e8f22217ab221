import { type ReactNode, useLayoutEffect, useState } from 'react';
import { formatNumber, formatRate, formatWhen } from '../format.js';
import type { ActivitySeries, Credits, InsightsOverview } from '../types.js';
import { EmptyState } from './EmptyState.js';
import { Untrusted } from './Untrusted.js';
import './data.css';
import './charts.css';

const SERIES = [
  { key: 'sends', name: 'Sends', className: 'o-series-1' },
  { key: 'acceptances', name: 'Acceptances', className: 'o-series-2' },
  { key: 'replies', name: 'Replies', className: 'o-series-3' },
] as const;

// The chart's drawing box, in SVG units; it scales to the width it is given. Narrower than W, the
// box is as wide as the chart is drawn, so a unit stays a pixel and the labels keep their size.
// The right pad holds half the last day's label, which is centred on the last day.
const W = 640;
const H = 240;
const PAD = { top: 12, right: 24, bottom: 28, left: 40 };
/** The room an x-axis label ("11-05") takes with a gap, in units. */
const LABEL_ROOM = 48;

/** The width `el` is drawn at, in CSS pixels, following it as it changes; 0 until known. */
function useDrawnWidth(el: Element | null): number {
  const [width, setWidth] = useState(0);
  useLayoutEffect(() => {
    if (!el || typeof ResizeObserver === 'undefined') return;
    const measure = () => setWidth(Math.round(el.getBoundingClientRect().width));
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, [el]);
  return width;
}

/** The y axis's gridline step: 1, 2 or 5 × 10^n, at least 1, so four steps reach `top`. */
export function gridStep(top: number): number {
  const rough = Math.max(1, top / 4);
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  for (const step of [1, 2, 5]) if (step * magnitude >= rough) return step * magnitude;
  return 10 * magnitude;
}

/**
 * Sends, acceptances and replies per day as a line chart in plain SVG, with the same numbers in
 * a table for screen readers. A range with nothing in it shows what to do instead of a flat line.
 */
export function ActivityChart({ series, emptyNext }: { series: ActivitySeries; emptyNext?: ReactNode }) {
  const [figure, setFigure] = useState<HTMLElement | null>(null);
  const drawn = useDrawnWidth(figure);
  const days = series.days;
  const top = Math.max(0, ...days.flatMap((d) => [d.sends, d.acceptances, d.replies]));
  if (days.length === 0 || top === 0) {
    return (
      <EmptyState title={`No sends, acceptances or replies in the last ${days.length || 'few'} days.`}>
        {emptyNext ?? 'Start a campaign with leads and an agent; its daily sends, acceptances and replies are charted here.'}
      </EmptyState>
    );
  }
  const step = gridStep(top);
  const max = 4 * step;
  const w = drawn > 0 && drawn < W ? Math.max(200, drawn) : W;
  const plotW = w - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const x = (i: number) => PAD.left + (days.length === 1 ? plotW / 2 : (i * plotW) / (days.length - 1));
  const y = (v: number) => PAD.top + plotH - (v * plotH) / max;
  const ticks = [0, step, 2 * step, 3 * step, max];
  // Eight labels at most, fewer where they would not fit side by side.
  const labelEvery = Math.max(1, Math.ceil(days.length / Math.max(2, Math.min(8, Math.floor(plotW / LABEL_ROOM)))));
  return (
    <figure className="o-chart" ref={setFigure}>
      <figcaption id="o-activity-chart-caption">Sends, acceptances and replies per day</figcaption>
      <svg className="o-chart-svg" viewBox={`0 0 ${w} ${H}`} aria-hidden="true" focusable="false">
        {ticks.map((t) => (
          <g key={t}>
            <line className="o-chart-grid" x1={PAD.left} x2={w - PAD.right} y1={y(t)} y2={y(t)} />
            <text className="o-chart-label" x={PAD.left - 6} y={y(t)} textAnchor="end" dominantBaseline="middle">
              {formatNumber(t)}
            </text>
          </g>
        ))}
        {days.map((d, i) =>
          // Every few days, and the last day unless it would sit on the one before it.
          (i % labelEvery === 0 && days.length - 1 - i >= labelEvery / 2) || i === days.length - 1 ? (
            <text key={d.date} className="o-chart-label" x={x(i)} y={H - 8} textAnchor="middle">
              {d.date.slice(5)}
            </text>
          ) : null,
        )}
        {SERIES.map((s) => (
          <polyline key={s.key} className={`o-chart-line ${s.className}`} points={days.map((d, i) => `${x(i)},${y(d[s.key])}`).join(' ')} />
        ))}
        {days.map((d, i) => (
          // A hover target per day: the day's three numbers as a tooltip.
          <rect key={d.date} className="o-chart-hit" x={x(i) - plotW / days.length / 2} y={PAD.top} width={plotW / days.length} height={plotH}>
            <title>{`${d.date}: ${d.sends} sends, ${d.acceptances} acceptances, ${d.replies} replies`}</title>
          </rect>
        ))}
      </svg>
      <ul className="o-legend" aria-hidden="true">
        {SERIES.map((s) => (
          <li key={s.key}>
            <span className={`o-swatch ${s.className}`} />
            {s.name}
          </li>
        ))}
      </ul>
      {/* A table ignores a small height, so the visually hidden box is a div around it. */}
      <div className="sr-only">
        <table aria-labelledby="o-activity-chart-caption">
          <thead>
            <tr>
              <th scope="col">Day</th>
              {SERIES.map((s) => (
                <th scope="col" key={s.key}>
                  {s.name}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {days.map((d) => (
              <tr key={d.date}>
                <th scope="row">{d.date}</th>
                <td>{d.sends}</td>
                <td>{d.acceptances}</td>
                <td>{d.replies}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}

/** A rate (0–100) as a bar and its figure, in one table cell. */
function RateBar({ rate, className }: { rate: number | null; className: string }) {
  return (
    <span className="o-bar-cell">
      <span className="o-bar-track" aria-hidden="true">
        {/* Set through the CSSOM, which the dashboard's style-src 'self' allows. */}
        <span className={`o-bar ${className}`} style={{ width: `${Math.min(100, Math.max(0, rate ?? 0))}%` }} />
      </span>
      <span className="o-bar-figure">{formatRate(rate)}</span>
    </span>
  );
}

/** The top campaigns' acceptance and reply rates side by side, as a table with bars. */
export function TopCampaignsChart({ insights, emptyNext }: { insights: InsightsOverview; emptyNext?: ReactNode }) {
  const byId = new Map<string, { id: string; name: string; acceptanceRate: number | null; replyRate: number | null }>();
  for (const c of [...insights.topCampaignsByReplyRate, ...insights.topCampaignsByAcceptanceRate]) {
    byId.set(c.id, { id: c.id, name: c.name, acceptanceRate: c.stats.acceptanceRate, replyRate: c.stats.replyRate });
  }
  const rows = [...byId.values()];
  if (rows.length === 0) {
    return (
      <EmptyState title="No campaign has sent anything yet, so there are no rates to compare.">
        {emptyNext ?? 'Acceptance and reply rates appear here once a campaign has sent its first connection requests.'}
      </EmptyState>
    );
  }
  return (
    <div className="o-table-wrap">
      <table className="o-table o-rates">
        <caption>Top campaigns: acceptance and reply rate</caption>
        <thead>
          <tr>
            <th scope="col">Campaign</th>
            <th scope="col">Acceptance rate</th>
            <th scope="col">Reply rate</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.id}>
              <th scope="row">
                <Untrusted>{r.name}</Untrusted>
              </th>
              <td>
                <RateBar rate={r.acceptanceRate} className="o-series-2" />
              </td>
              <td>
                <RateBar rate={r.replyRate} className="o-series-3" />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export interface InsightsPanelProps {
  /** A get_insights_overview result. */
  insights: InsightsOverview;
  /** A get_credits result, when the page has it. */
  credits?: Credits;
  /** A get_activity_series result, for the per-day chart. */
  series?: ActivitySeries;
  /** The next step when nothing has been sent yet (a link in the dashboard; words in a view). */
  emptyNext?: ReactNode;
}

/** The workspace counters, highlights and charts. Renders only from the results it is given. */
export function InsightsPanel({ insights, credits, series, emptyNext }: InsightsPanelProps) {
  const w = insights.workspace;
  const counters: [string, number][] = [
    ...(credits
      ? ([
          ['Credits', credits.credits],
          ['Top-up credits', credits.topUpCredits],
          ['Lookalike credits', credits.lookalikeCredits],
        ] as [string, number][])
      : []),
    ['Requests sent', w.connectionRequestsSent],
    ['Accepted', w.connectionRequestsAccepted],
    ['Messages sent', w.messagesSent],
    ['Replies', w.repliesReceived],
  ];
  const h = insights.highlights;
  return (
    <section aria-labelledby="o-insights-heading" className="o-stack">
      <h2 id="o-insights-heading">Insights</h2>
      <dl className="o-stats">
        {counters.map(([label, value]) => (
          <div className="o-stat" key={label}>
            <dt>{label}</dt>
            <dd>{formatNumber(value)}</dd>
          </div>
        ))}
      </dl>
      <p className="o-muted">
        {h.lastActivityAt ? <>Last activity {formatWhen(h.lastActivityAt)}</> : 'No activity yet'}
        {h.lastReplyAt ? (
          <>
            {' '}
            · last reply {formatWhen(h.lastReplyAt)} from <Untrusted fallback="a lead">{h.lastReplyLeadName}</Untrusted>
          </>
        ) : (
          ' · no replies yet'
        )}
        {credits ? ` · plan ${credits.planId}` : ''}
      </p>
      {series ? <ActivityChart series={series} emptyNext={emptyNext} /> : null}
      {/* The next step is said once, under the first empty chart. */}
      <TopCampaignsChart insights={insights} emptyNext={series ? 'Once one has, its acceptance and reply rates are compared here.' : emptyNext} />
    </section>
  );
}
