// world croupier:agent/toepen@0.2.0
export type * as CroupierAgentCommon020 from './interfaces/croupier-agent-common.js'; // import croupier:agent/common@0.2.0
export type * as CroupierAgentHost020 from './interfaces/croupier-agent-host.js'; // import croupier:agent/host@0.2.0
export type * as CroupierAgentToepenTypes020 from './interfaces/croupier-agent-toepen-types.js'; // import croupier:agent/toepen-types@0.2.0
export * as toepenAgent from './interfaces/croupier-agent-toepen-agent.js'; // export croupier:agent/toepen-agent@0.2.0
