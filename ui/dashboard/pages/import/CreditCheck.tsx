import { formatNumber } from '../../../shared/format.js';
import type { ImportPreview } from '../../../shared/types.js';
import { Link } from '../../router.js';

/**
 * What the import costs against what the workspace has. When credits fall short it says how
 * many rows a run now would leave out and what to do: grant credits, or import fewer rows.
 */
export function CreditCheck({ preview }: { preview: Pick<ImportPreview, 'creditsNeeded' | 'creditsAvailable' | 'shortOfCredits'> }) {
  const { creditsNeeded, creditsAvailable, shortOfCredits } = preview;
  const missing = Math.max(0, creditsNeeded - creditsAvailable);
  return (
    <>
      <dl className="o-stats" aria-label="Credits">
        <div className="o-stat">
          <dt>Credits needed</dt>
          <dd>{formatNumber(creditsNeeded)}</dd>
        </div>
        <div className="o-stat">
          <dt>Credits available</dt>
          <dd>{formatNumber(creditsAvailable)}</dd>
        </div>
        <div className="o-stat">
          <dt>Rows short of credits</dt>
          <dd>{formatNumber(shortOfCredits)}</dd>
        </div>
      </dl>
      {shortOfCredits > 0 ? (
        <div role="alert" className="o-alert o-alert-warning">
          <p>
            <strong>Not enough credits.</strong> Importing now would leave {formatNumber(shortOfCredits)} row{shortOfCredits === 1 ? '' : 's'} without a lead
            (insufficient credits): {formatNumber(creditsNeeded)} needed, {formatNumber(creditsAvailable)} available.
          </p>
          <p>
            Grant at least {formatNumber(missing)} more on <Link to="/settings">Settings</Link> (or run <code>outreach credits add {missing}</code> on the
            server), then preview again; or import fewer rows. Rows left out can be imported later: rows already in are skipped free.
          </p>
        </div>
      ) : null}
    </>
  );
}
