// world croupier:agent/uno@0.2.0
export type * as CroupierAgentCommon020 from './interfaces/croupier-agent-common.js'; // import croupier:agent/common@0.2.0
export type * as CroupierAgentHost020 from './interfaces/croupier-agent-host.js'; // import croupier:agent/host@0.2.0
export type * as CroupierAgentUnoTypes020 from './interfaces/croupier-agent-uno-types.js'; // import croupier:agent/uno-types@0.2.0
export * as unoAgent from './interfaces/croupier-agent-uno-agent.js'; // export croupier:agent/uno-agent@0.2.0
