import { useId } from 'react';
import { LEAD_SORT_LABELS, type LeadSort } from '../../types.js';
import { FILTER_OPTIONS, filterValue, SORTS_BY_FILTER, type LeadFilter } from './filters.js';
import '../forms.css';

/** The filter and sort selects; a filter that does not allow the current sort falls back to createdAt. */
export function LeadFilterBar({ filter, sort, onChange }: { filter: LeadFilter; sort: LeadSort; onChange: (filter: LeadFilter, sort: LeadSort) => void }) {
  const id = useId();
  return (
    <div className="o-row">
      <div className="o-field">
        <label htmlFor={`${id}-filter`}>Show</label>
        <select
          id={`${id}-filter`}
          className="o-select"
          value={filterValue(filter)}
          onChange={(e) => {
            const next = FILTER_OPTIONS.find((o) => o.value === e.target.value)?.filter ?? { kind: 'none' };
            onChange(next, SORTS_BY_FILTER[next.kind].includes(sort) ? sort : 'createdAt');
          }}
        >
          {FILTER_OPTIONS.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      </div>
      <div className="o-field">
        <label htmlFor={`${id}-sort`}>Sort by (newest first)</label>
        <select id={`${id}-sort`} className="o-select" value={sort} onChange={(e) => onChange(filter, e.target.value as LeadSort)}>
          {SORTS_BY_FILTER[filter.kind].map((s) => (
            <option key={s} value={s}>
              {LEAD_SORT_LABELS[s]}
            </option>
          ))}
        </select>
      </div>
    </div>
  );
}
