// My Durak agent. Start in `decide`: it gets everything this seat may know and the
// legal actions, and must return one of them.
//
// Cards are bytes: suit * 13 + (rank - 2), suits clubs, diamonds, hearts, spades; a set of
// cards is a u64 with bit `card` set. Actions are u32: kind | a << 8 | b << 16 (see
// wit/v0.2/durak.wit in the Croupier repository, or build/bindings/durak.h after a build).
#include "durak.h"

enum { LEAD = 1, BEAT = 3, TRANSFER = 4, TAKE = 6, THROW_IN = 7, PASS = 8 };

static int suit(int card) { return card / 13; }
static int rank(int card) { return card % 13 + 2; }

// Lower is cheaper: any plain card is cheaper than any trump.
static int cost(int card, int trump) { return rank(card) + (suit(card) == trump ? 20 : 0); }

void exports_croupier_agent_durak_agent_start(exports_croupier_agent_durak_agent_game_info_t *info) {
    // info->seat is our seat, info->players the number of players, info->seed our seed.
    // The arguments belong to us: free them (the bindings allocated them with malloc).
    exports_croupier_agent_durak_agent_game_info_free(info);
}

exports_croupier_agent_durak_agent_action_t exports_croupier_agent_durak_agent_decide(
    exports_croupier_agent_durak_agent_observation_t *obs,
    exports_croupier_agent_durak_agent_list_action_t *legal,
    exports_croupier_agent_durak_agent_budget_t *budget) {
    (void)budget;
    // What you can use: obs->hand, obs->table (attack cards and their defence), obs->trump,
    // obs->phase, obs->discard (cards gone for good), obs->unseen, obs->seats[s].known ...
    // Simple legal strategy: play the cheapest card we can (lead, beat, throw in), but never
    // throw in a trump and never transfer; if no card fits, take or pass.
    int trump = suit(obs->trump);
    uint32_t choice = legal->ptr[0]; // the host only asks when there is a choice
    int best = 1000;
    for (size_t i = 0; i < legal->len; i++) {
        uint32_t a = legal->ptr[i];
        int kind = a & 0xff, card = (a >> 8) & 0xff;
        if (kind == LEAD || kind == BEAT || (kind == THROW_IN && suit(card) != trump)) {
            if (cost(card, trump) < best) {
                best = cost(card, trump);
                choice = a;
            }
        }
    }
    if (best == 1000) {
        for (size_t i = 0; i < legal->len; i++)
            if (legal->ptr[i] == PASS || legal->ptr[i] == TAKE) choice = legal->ptr[i];
    }
    exports_croupier_agent_durak_agent_observation_free(obs);
    exports_croupier_agent_durak_agent_list_action_free(legal);
    return choice;
}
