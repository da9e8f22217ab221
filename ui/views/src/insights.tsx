import { InsightsPanel } from '../../shared/components/InsightsPanel.js';
import type { InsightsOverview } from '../../shared/types.js';
import { mountView } from './shell.js';

mountView<InsightsOverview>({
  name: 'insights',
  waiting: 'Waiting for the insights…',
  render: ({ data }) => <InsightsPanel insights={data} />,
});
