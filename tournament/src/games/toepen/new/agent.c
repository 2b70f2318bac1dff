// My Toepen agent. Start in `decide`: it gets everything this seat may know and the
// legal actions, and must return one of them.
//
// Cards are bytes: suit * 13 + (rank - 2). Actions are u32: play = 1 | card << 8; knock = 2;
// no-knock = 3; stay = 4; fold = 5; claim-laundry = 6; claim-white-laundry = 7;
// no-claim = 8; challenge = 9; no-challenge = 10 (wit/v0.2/toepen.wit).
#include "toepen.h"

enum { PLAY = 1, NO_KNOCK = 3, STAY = 4, NO_CLAIM = 8, NO_CHALLENGE = 10 };

// Toepen's order inside a suit: J < Q < K < A < 7 < 8 < 9 < 10.
static int strength(int card) {
    int rank = card % 13 + 2;
    return rank >= 11 ? rank - 10 : rank - 2;
}

void exports_croupier_agent_toepen_agent_start(exports_croupier_agent_toepen_agent_game_info_t *info) {
    // The arguments belong to us: free them (the bindings allocated them with malloc).
    exports_croupier_agent_toepen_agent_game_info_free(info);
}

exports_croupier_agent_toepen_agent_action_t exports_croupier_agent_toepen_agent_decide(
    exports_croupier_agent_toepen_agent_observation_t *obs,
    exports_croupier_agent_toepen_agent_list_action_t *legal,
    exports_croupier_agent_toepen_agent_budget_t *budget) {
    (void)budget;
    // Simple legal strategy: play the weakest legal card; never knock, stay when someone
    // knocks, make no laundry claim and challenge nobody.
    uint32_t choice = legal->ptr[0]; // the host only asks when there is a choice
    int best = 100;
    for (size_t i = 0; i < legal->len; i++) {
        uint32_t a = legal->ptr[i];
        if ((a & 0xff) == PLAY && strength((a >> 8) & 0xff) < best) {
            best = strength((a >> 8) & 0xff);
            choice = a;
        }
    }
    if (best == 100) {
        for (size_t i = 0; i < legal->len; i++) {
            uint32_t a = legal->ptr[i];
            if (a == STAY || a == NO_KNOCK || a == NO_CLAIM || a == NO_CHALLENGE) choice = a;
        }
    }
    exports_croupier_agent_toepen_agent_observation_free(obs);
    exports_croupier_agent_toepen_agent_list_action_free(legal);
    return choice;
}
