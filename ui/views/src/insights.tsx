import { InsightsPanel } from '../../shared/components/InsightsPanel.js';
import { useTool } from '../../shared/hooks.js';
import type { InsightsOverview, ToolArgs } from '../../shared/types.js';
import { HostChanges } from './live.js';
import { mountView, type ViewProps } from './shell.js';

/**
 * The overview the host's call returned, kept current: the view follows every change in the
 * key's scope (./live.tsx), and a campaign's change makes this read stale, so it calls
 * get_insights_overview again through the host with the same arguments.
 */
function Insights({ data, args }: ViewProps<InsightsOverview>) {
  const { data: insights } = useTool('get_insights_overview', args as ToolArgs<'get_insights_overview'>, { initialData: data });
  return <InsightsPanel insights={insights ?? data} />;
}

mountView<InsightsOverview>({
  name: 'insights',
  waiting: 'Waiting for the insights…',
  render: (props) => <Insights {...props} />,
  follow: HostChanges,
});
