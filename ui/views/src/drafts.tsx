import { DraftQueue } from '../../shared/components/DraftQueue.js';
import type { ListDraftsResult, ToolArgs } from '../../shared/types.js';
import { HostChanges } from './live.js';
import { mountView, type ViewProps } from './shell.js';

/**
 * The drafts view: the result of list_drafts in the chat, as the dashboard's queue (the same
 * component, through the same callTool seam), to edit, approve one or a selection, and reject.
 */

/** The list_drafts arguments the host's call carried, as the queue's own. */
function queueArgs(args: Record<string, unknown>): ToolArgs<'list_drafts'> {
  const out: ToolArgs<'list_drafts'> = {};
  if (typeof args.campaignId === 'string') out.campaignId = args.campaignId;
  if (typeof args.status === 'string') out.status = args.status as NonNullable<ToolArgs<'list_drafts'>['status']>;
  if (typeof args.limit === 'number') out.limit = args.limit;
  return out;
}

function Drafts({ data, args }: ViewProps<ListDraftsResult>) {
  return (
    <>
      <h1 className="o-view-title">Drafts to review</h1>
      <DraftQueue args={queueArgs(args)} initial={data} shortcuts />
    </>
  );
}

mountView<ListDraftsResult>({ name: 'drafts', waiting: 'Waiting for the drafts…', render: (props) => <Drafts {...props} />, follow: HostChanges });
