// world croupier:agent/durak@0.2.0
export type * as CroupierAgentCommon020 from './interfaces/croupier-agent-common.js'; // import croupier:agent/common@0.2.0
export type * as CroupierAgentDurakTypes020 from './interfaces/croupier-agent-durak-types.js'; // import croupier:agent/durak-types@0.2.0
export type * as CroupierAgentHost020 from './interfaces/croupier-agent-host.js'; // import croupier:agent/host@0.2.0
export * as durakAgent from './interfaces/croupier-agent-durak-agent.js'; // export croupier:agent/durak-agent@0.2.0
