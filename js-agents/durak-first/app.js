// durak/js-first: the first legal action, through the SDK. The trivial agent whose decisions
// per second and instantiation time `croupier bench` reports for JavaScript.
import * as durak from '../../sdk/js/croupier/durak.js';

class First extends durak.Agent {
  decide(obs, legal) {
    return legal[0];
  }
}

export const durakAgent = durak.export(First);
