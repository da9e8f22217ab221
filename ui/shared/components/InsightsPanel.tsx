import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { formatNumber, formatRate, formatWhen } from '../format.js';
import type { ActivitySeries, Credits, InsightsOverview } from '../types.js';

const SERIES = [
  { key: 'sends', name: 'Sends', color: '#1f5fbf' },
  { key: 'acceptances', name: 'Acceptances', color: '#1e8a4c' },
  { key: 'replies', name: 'Replies', color: '#b35c00' },
] as const;

/** Sends, acceptances and replies per day; the same numbers follow as a table for screen readers. */
export function ActivityChart({ series }: { series: ActivitySeries }) {
  return (
    <figure className="o-chart">
      <figcaption id="o-activity-chart-caption">Sends, acceptances and replies per day</figcaption>
      <div className="o-chart-box" aria-hidden="true">
        <ResponsiveContainer width="100%" height="100%" initialDimension={{ width: 600, height: 260 }}>
          <LineChart data={series.days} margin={{ top: 8, right: 16, bottom: 8, left: 0 }} accessibilityLayer={false}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis dataKey="date" tickFormatter={(d: string) => d.slice(5)} />
            <YAxis allowDecimals={false} />
            <Tooltip />
            <Legend />
            {SERIES.map((s) => (
              <Line key={s.key} type="monotone" dataKey={s.key} name={s.name} stroke={s.color} strokeWidth={2} dot={false} isAnimationActive={false} />
            ))}
          </LineChart>
        </ResponsiveContainer>
      </div>
      <table className="sr-only" aria-labelledby="o-activity-chart-caption">
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
          {series.days.map((d) => (
            <tr key={d.date}>
              <th scope="row">{d.date}</th>
              <td>{d.sends}</td>
              <td>{d.acceptances}</td>
              <td>{d.replies}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}

/** The top campaigns' acceptance and reply rates side by side. */
export function TopCampaignsChart({ insights }: { insights: InsightsOverview }) {
  const byId = new Map<string, { name: string; acceptanceRate: number; replyRate: number }>();
  for (const c of [...insights.topCampaignsByReplyRate, ...insights.topCampaignsByAcceptanceRate]) {
    byId.set(c.id, { name: c.name, acceptanceRate: c.stats.acceptanceRate ?? 0, replyRate: c.stats.replyRate ?? 0 });
  }
  const rows = [...byId.values()];
  if (rows.length === 0) return <p className="o-muted">No campaign has sent anything yet, so there are no rates to compare.</p>;
  return (
    <figure className="o-chart">
      <figcaption id="o-top-chart-caption">Top campaigns: acceptance and reply rate (%)</figcaption>
      <div className="o-chart-box" aria-hidden="true">
        <ResponsiveContainer width="100%" height="100%" initialDimension={{ width: 600, height: 260 }}>
          <BarChart data={rows} margin={{ top: 8, right: 16, bottom: 8, left: 0 }} accessibilityLayer={false}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis dataKey="name" />
            <YAxis unit="%" />
            <Tooltip />
            <Legend />
            <Bar dataKey="acceptanceRate" name="Acceptance rate" fill="#1e8a4c" isAnimationActive={false} />
            <Bar dataKey="replyRate" name="Reply rate" fill="#b35c00" isAnimationActive={false} />
          </BarChart>
        </ResponsiveContainer>
      </div>
      <table className="sr-only" aria-labelledby="o-top-chart-caption">
        <thead>
          <tr>
            <th scope="col">Campaign</th>
            <th scope="col">Acceptance rate</th>
            <th scope="col">Reply rate</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.name}>
              <th scope="row">{r.name}</th>
              <td>{formatRate(r.acceptanceRate)}</td>
              <td>{formatRate(r.replyRate)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}

export interface InsightsPanelProps {
  /** A get_insights_overview result. */
  insights: InsightsOverview;
  /** A get_credits result, when the page has it. */
  credits?: Credits;
  /** A get_activity_series result, for the per-day chart. */
  series?: ActivitySeries;
}

/** The workspace counters, highlights and charts. Renders only from the results it is given. */
export function InsightsPanel({ insights, credits, series }: InsightsPanelProps) {
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
        Last activity {formatWhen(insights.highlights.lastActivityAt)}
        {insights.highlights.lastReplyAt
          ? ` · last reply ${formatWhen(insights.highlights.lastReplyAt)} from ${insights.highlights.lastReplyLeadName ?? 'a lead'}`
          : ' · no replies yet'}
        {credits ? ` · plan ${credits.planId}` : ''}
      </p>
      {series ? <ActivityChart series={series} /> : null}
      <TopCampaignsChart insights={insights} />
    </section>
  );
}
