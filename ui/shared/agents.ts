import { useTool } from './hooks.js';
import { useOffered } from './offered.js';

/**
 * An agent's name for a card that holds only its id: the workspace's first 100 agents (one
 * cached call however many cards show), else get_agent for that one. Undefined while loading,
 * or where the connection offers neither tool (an MCP view without the manage toolset).
 */
export function useAgentName(agentId: string | null): string | undefined {
  const { offers } = useOffered();
  const list = useTool('list_agents', { limit: 100 }, { enabled: agentId !== null && offers('list_agents') });
  const listed = agentId === null ? undefined : list.data?.agents.find((a) => a.id === agentId);
  const missing = agentId !== null && listed === undefined && (list.data !== undefined || list.isError || !offers('list_agents'));
  const one = useTool('get_agent', { agentId: agentId ?? '' }, { enabled: missing && offers('get_agent') });
  return listed?.name ?? one.data?.name;
}
