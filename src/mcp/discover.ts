import { SUPPORTED_PROTOCOL_VERSIONS, type DiscoverResult, type Server } from '@modelcontextprotocol/server';
import { MODERN_PROTOCOL_VERSION } from './card.js';

/**
 * Every revision this server serves, newest first: 2026-07-28 (per-request `_meta`) and the
 * 2025 ones (the `initialize` handshake), all on the same endpoint and on stdio.
 */
export const SERVED_PROTOCOL_VERSIONS: readonly string[] = [MODERN_PROTOCOL_VERSION, ...SUPPORTED_PROTOCOL_VERSIONS];

type Discovering = { _ondiscover(): DiscoverResult };

/**
 * `server/discover` names every revision served, not only the 2026-07-28 ones the SDK lists:
 * the revision defines `supportedVersions` as the versions the server supports, and its own
 * example of a version error from a dual-era server names a 2025 revision beside 2026-07-28.
 * A client picks its version from the list (a 2025 one means opening with `initialize`); the
 * SDK's client picks the first of its own 2026 revisions it finds there, so the longer list
 * changes nothing for it. The SDK installs its discover handler itself (at construction, and
 * again in its HTTP entry), and that handler answers with the instance's `_ondiscover`, so
 * this instance's answer is widened there, keeping the capabilities and instructions the SDK
 * derives.
 */
export function discoverEveryRevision(server: Server): void {
  const target = server as unknown as Discovering;
  if (typeof target._ondiscover !== 'function')
    throw new Error('The MCP SDK no longer answers server/discover through _ondiscover; update src/mcp/discover.ts.');
  const sdkAnswer = target._ondiscover.bind(server);
  target._ondiscover = () => ({ ...sdkAnswer(), supportedVersions: [...SERVED_PROTOCOL_VERSIONS] });
}
