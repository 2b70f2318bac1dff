// My UNO agent. Start in `decide`: it gets everything this seat may know and the legal
// actions, and must return one of them.
//
// Actions are u32: kind | card << 8 | declare << 16 | uno << 24, declare 0 = none or
// 1 + colour; kinds choose-color = 1, play = 2, draw = 3, play-drawn = 4, keep = 5,
// challenge = 6, accept = 7, stack = 8, accept-penalty = 9, catch-uno = 10, no-catch = 11
// (wit/v0.2/uno.wit).
#include "uno.h"

enum { PLAY = 2, PLAY_DRAWN = 4 };

void exports_croupier_agent_uno_agent_start(exports_croupier_agent_uno_agent_game_info_t *info) {
    // The arguments belong to us: free them (the bindings allocated them with malloc).
    exports_croupier_agent_uno_agent_game_info_free(info);
}

exports_croupier_agent_uno_agent_action_t exports_croupier_agent_uno_agent_decide(
    exports_croupier_agent_uno_agent_observation_t *obs,
    exports_croupier_agent_uno_agent_list_action_t *legal,
    exports_croupier_agent_uno_agent_budget_t *budget) {
    (void)budget;
    // Simple legal strategy: play a coloured card if we can, else a wild card, else whatever
    // the rules leave first (draw, keep, accept).
    uint32_t choice = legal->ptr[0]; // the host only asks when there is a choice
    int found = 0;
    for (size_t i = 0; i < legal->len && found < 2; i++) {
        uint32_t a = legal->ptr[i];
        int kind = a & 0xff, declare = (a >> 16) & 0xff;
        if (kind == PLAY || kind == PLAY_DRAWN) {
            int score = declare == 0 ? 2 : 1;
            if (score > found) {
                found = score;
                choice = a;
            }
        }
    }
    exports_croupier_agent_uno_agent_observation_free(obs);
    exports_croupier_agent_uno_agent_list_action_free(legal);
    return choice;
}
