export { Engine, type EngineOptions, type TickReport } from './engine.js';
export { RuleBasedAgent, MAX_AGENT_TURNS, type AgentDecision, type AgentInput, type ReplyAgent } from '../../core/outreach/agent.js';
export { EngineConfig, resolveEngineSettings, ENGINE_DEFAULTS, type EngineSettings } from '../../core/outreach/settings.js';
export { leaseHolder, simHighWater } from '../../core/outreach/lease.js';
