// uno/c-primary: the Rust `uno/primary` in C, decision for decision, random colours included
// (croupier_rng.h is the Rust SDK's stream). cli/tests/c.rs checks that both play
// byte-identical games under the same seed.
//
// Among the cards it may play: a card of the top card's value (same number or symbol, any
// colour), the first in hand order; else a number card of the current colour; else an action
// card of the current colour; else a Wild, then a Wild Draw Four, naming a random colour.
// With no card it draws (and plays the drawn card if it may). It stacks at a penalty turn
// whenever it can, never challenges, always catches a forgotten UNO, and always calls UNO.
//
// Cards are bytes: colour * 13 + kind (kinds 0-9, 10 skip, 11 reverse, 12 draw two), 52 wild,
// 53 wild draw four. Actions are u32: kind | card << 8 | declare << 16 | uno << 24, where
// declare is the colour + 1 (0: none) (wit/v0.2/uno.wit).
#include "croupier_rng.h"
#include "uno.h"

enum { CHOOSE_COLOR = 1, PLAY = 2, DRAW = 3, PLAY_DRAWN = 4, KEEP = 5, ACCEPT = 7, STACK = 8 };
enum { ACCEPT_PENALTY = 9, CATCH_UNO = 10, WILD = 52, WD4 = 53, SKIP = 10 };

typedef exports_croupier_agent_uno_agent_list_action_t legal_t;
typedef exports_croupier_agent_uno_agent_observation_t obs_t;

static game_rng rng; // one game per instance: `start` reseeds it

static int color_of(int card) { return card < 52 ? card / 13 : -1; }
static int kind_of(int card) { return card < 52 ? card % 13 : -1; }

// The card an action plays (the drawn card for a play-drawn), else -1.
static int card_of(uint32_t a, const obs_t *obs) {
    int k = a & 0xff;
    if (k == PLAY || k == STACK) return (a >> 8) & 0xff;
    if (k == PLAY_DRAWN) return obs->drawn.is_some ? obs->drawn.val : -1;
    return -1;
}

static int is_legal(const legal_t *legal, uint32_t a) {
    for (size_t i = 0; i < legal->len; i++)
        if (legal->ptr[i] == a) return 1;
    return 0;
}

// The legal action that plays `card` naming `color` (any colour if that one is not offered),
// calling UNO when that is an option; 0 if `card` cannot be played.
static uint32_t play_action(const obs_t *obs, const legal_t *legal, int card, int color) {
    uint32_t best = 0;
    int best_rank = -1;
    for (size_t i = 0; i < legal->len; i++) {
        uint32_t a = legal->ptr[i];
        if (card_of(a, obs) != card) continue;
        int d = (a >> 16) & 0xff;
        int rank = (d == 0 || d - 1 == color ? 2 : 0) + (int)((a >> 24) & 1);
        if (rank > best_rank) { best = a; best_rank = rank; }
    }
    return best;
}

// Primary's card among the playable ones (a bit set over card codes 0..53), or -1.
static int pick(const obs_t *obs, uint64_t cards) {
    int value = kind_of(obs->top);
    for (int pass = 0; pass < 5; pass++)
        for (int c = 0; c < 54; c++) {
            if (!(cards >> c & 1)) continue;
            int current = color_of(c) == obs->color, action = kind_of(c) >= SKIP;
            if ((pass == 0 && value >= 0 && kind_of(c) == value) || (pass == 1 && current && !action) ||
                (pass == 2 && current && action) || (pass == 3 && c == WILD) || (pass == 4 && c == WD4))
                return c;
        }
    return -1;
}

static uint32_t decide(const obs_t *obs, const legal_t *legal) {
    switch (obs->decision) {
    case CROUPIER_AGENT_UNO_TYPES_DECISION_CHOOSE_START_COLOR:
        return CHOOSE_COLOR | (rng_below(&rng, 4) + 1) << 16;
    case CROUPIER_AGENT_UNO_TYPES_DECISION_TURN:
    case CROUPIER_AGENT_UNO_TYPES_DECISION_PENALTY_TURN:
    case CROUPIER_AGENT_UNO_TYPES_DECISION_AFTER_DRAW: {
        uint64_t cards = 0; // the distinct playable cards, in code (= hand) order
        for (size_t i = 0; i < legal->len; i++) {
            int c = card_of(legal->ptr[i], obs);
            if (c >= 0) cards |= 1ull << c;
        }
        int card = -1;
        if (obs->decision == CROUPIER_AGENT_UNO_TYPES_DECISION_AFTER_DRAW)
            card = cards ? __builtin_ctzll(cards) : -1;
        else
            card = pick(obs, cards);
        if (card >= 0) {
            int color = card >= 52 ? (int)rng_below(&rng, 4) : obs->color;
            return play_action(obs, legal, card, color);
        }
        const uint32_t wanted[3] = {DRAW, ACCEPT_PENALTY, KEEP};
        for (int i = 0; i < 3; i++)
            if (is_legal(legal, wanted[i])) return wanted[i];
        return 0;
    }
    case CROUPIER_AGENT_UNO_TYPES_DECISION_WD4_CHALLENGE: return ACCEPT;
    case CROUPIER_AGENT_UNO_TYPES_DECISION_UNO_CATCH: return CATCH_UNO;
    }
    return 0;
}

void exports_croupier_agent_uno_agent_start(exports_croupier_agent_uno_agent_game_info_t *info) {
    rng_seed(&rng, info->seed);
    exports_croupier_agent_uno_agent_game_info_free(info); // arguments belong to the callee
}

exports_croupier_agent_uno_agent_action_t
exports_croupier_agent_uno_agent_decide(obs_t *obs, legal_t *legal, exports_croupier_agent_uno_agent_budget_t *budget) {
    (void)budget;
    uint32_t chosen = decide(obs, legal);
    // Whatever was chosen must be legal; else the first legal action, as the Rust agent does.
    uint32_t action = is_legal(legal, chosen) || legal->len == 0 ? chosen : legal->ptr[0];
    exports_croupier_agent_uno_agent_observation_free(obs);
    exports_croupier_agent_uno_agent_list_action_free(legal);
    return action;
}
