import type { ImportField, ImportPreview } from '../../../shared/types.js';
import { Untrusted } from '../../../shared/components/Untrusted.js';

/** Every lead field a column can fill, checked against the tool's own list by the type-check. */
const FIELD_SET: Record<ImportField, true> = {
  networkUrl: true,
  fullName: true,
  firstName: true,
  lastName: true,
  jobTitle: true,
  companyName: true,
  email: true,
  location: true,
  headline: true,
  personalization: true,
};
const FIELDS = Object.keys(FIELD_SET) as ImportField[];

/**
 * Each column of the file and the lead field it fills; changing one asks for a new preview.
 * The tool's map can add or change a column's field, not drop an automatic one, so a column
 * mapped automatically offers no "Ignore".
 */
export function ColumnMapping({
  idPrefix,
  columns,
  map,
  auto,
  onChange,
}: {
  idPrefix: string;
  columns: ImportPreview['columns'];
  map: Record<string, ImportField>;
  auto: Record<string, ImportField | null>;
  onChange: (header: string, field: ImportField | '') => void;
}) {
  return (
    <table className="o-table">
      <caption className="sr-only">Column mapping</caption>
      <thead>
        <tr>
          <th scope="col">Column</th>
          <th scope="col">Lead field</th>
        </tr>
      </thead>
      <tbody>
        {columns.map((col) => (
          <tr key={col.header}>
            <th scope="row">
              <Untrusted>{col.header}</Untrusted>
            </th>
            <td>
              <label htmlFor={`${idPrefix}-map-${col.header}`} className="sr-only">
                Field for column <Untrusted>{col.header}</Untrusted>
              </label>
              <select
                id={`${idPrefix}-map-${col.header}`}
                className="o-select"
                value={map[col.header] ?? col.field ?? ''}
                onChange={(e) => onChange(col.header, e.target.value as ImportField | '')}
              >
                {auto[col.header] ? null : <option value="">Ignore</option>}
                {FIELDS.map((f) => (
                  <option key={f} value={f}>
                    {f}
                  </option>
                ))}
              </select>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
