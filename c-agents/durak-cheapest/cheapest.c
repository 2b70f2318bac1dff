// durak/c-cheapest: the Rust `durak/cheapest` (example-agents/durak-common, the base
// behaviour with style CHEAPEST) in C, decision for decision. cli/tests/c.rs checks that both
// play byte-identical games under the same seed.
//
// Cards are bytes: suit * 13 + (rank - 2); a set of cards is a u64 with bit `card` set.
// Actions are u32: kind | a << 8 | b << 16 (wit/v0.2/durak.wit).
#include "durak.h"
#include "croupier_rng.h" // written beside the bindings by `croupier build` (sdk/c/)

enum { LEAD = 1, LEAD_MANY = 2, BEAT = 3, TRANSFER = 4, TAKE = 6, THROW_IN = 7, PASS = 8 };

typedef exports_croupier_agent_durak_agent_list_action_t legal_t;

static game_rng rng; // one game per instance: `start` reseeds it

static int suit(int card) { return card / 13; }
static int rank(int card) { return card % 13 + 2; }
static uint32_t act(int kind, int a, int b) { return (uint32_t)kind | (uint32_t)a << 8 | (uint32_t)b << 16; }
static int kind(uint32_t action) { return action & 0xff; }
static int arg_a(uint32_t action) { return (action >> 8) & 0xff; }

// "Cheapness": any plain card before any trump, then lower rank, then suit order.
static int cheap_key(int card, int trump) { return (suit(card) == trump) * 1000 + rank(card) * 4 + suit(card); }

// The cheapest card of a set, or -1.
static int cheapest(uint64_t cards, int trump) {
    int best = -1;
    for (int c = 0; c < 64; c++)
        if ((cards >> c & 1) && (best < 0 || cheap_key(c, trump) < cheap_key(best, trump))) best = c;
    return best;
}

static uint64_t suit_mask(int s) { return ((1ull << 13) - 1) << (13 * s); }

// `wanted` if it is legal, else the first legal action.
static uint32_t choose(const legal_t *legal, uint32_t wanted) {
    for (size_t i = 0; i < legal->len; i++)
        if (legal->ptr[i] == wanted) return wanted;
    return legal->len ? legal->ptr[0] : PASS;
}

static int has_kind(const legal_t *legal, int k) {
    for (size_t i = 0; i < legal->len; i++)
        if (kind(legal->ptr[i]) == k) return 1;
    return 0;
}

// The card that beats `attack`: the cheapest higher card of its suit; for a plain card
// without one, the cheapest trump. -1: none.
static int cover(uint64_t hand, int trump, int attack) {
    int best = -1;
    for (int c = 13 * suit(attack); c < 13 * suit(attack) + 13; c++)
        if ((hand >> c & 1) && rank(c) > rank(attack)) { best = c; break; }
    if (best >= 0 || suit(attack) == trump) return best;
    return cheapest(hand & suit_mask(trump), trump);
}

static uint32_t defend(uint64_t hand, int trump, const croupier_agent_durak_types_list_bout_card_t *table,
                       const legal_t *legal) {
    // Plan the whole table greedily; play the plan's first step if every card can be beaten.
    int ok = 1, first_slot = -1, first_card = -1, any_beaten = 0;
    for (size_t s = 0; s < table->len; s++) {
        if (table->ptr[s].defence.is_some) { any_beaten = 1; continue; }
        int c = cover(hand, trump, table->ptr[s].attack);
        if (c < 0) { ok = 0; break; }
        hand &= ~(1ull << c);
        if (first_slot < 0) { first_slot = (int)s; first_card = c; }
    }
    if (ok && first_slot >= 0) return choose(legal, act(BEAT, first_card, first_slot));
    // Transfer only while nothing is beaten, with the cheapest plain card the rules allow.
    for (size_t s = 0; s < table->len; s++)
        if (table->ptr[s].defence.is_some) any_beaten = 1;
    if (!any_beaten) {
        int best = -1;
        for (size_t i = 0; i < legal->len; i++) {
            int c = arg_a(legal->ptr[i]);
            if (kind(legal->ptr[i]) == TRANSFER && suit(c) != trump &&
                (best < 0 || cheap_key(c, trump) < cheap_key(best, trump)))
                best = c;
        }
        if (best >= 0) return act(TRANSFER, best, 0);
    }
    return choose(legal, TAKE);
}

static uint32_t throw_in(int trump, const legal_t *legal) {
    // A random plain card among the legal throw-ins, in card order, as the Rust CardSet.
    uint64_t cards = 0;
    for (size_t i = 0; i < legal->len; i++)
        if (kind(legal->ptr[i]) == THROW_IN && suit(arg_a(legal->ptr[i])) != trump)
            cards |= 1ull << arg_a(legal->ptr[i]);
    if (!cards) return choose(legal, PASS);
    uint32_t k = rng_below(&rng, (uint64_t)__builtin_popcountll(cards));
    for (int c = 0; c < 64; c++)
        if ((cards >> c & 1) && k-- == 0) return act(THROW_IN, c, 0);
    return choose(legal, PASS);
}

void exports_croupier_agent_durak_agent_start(exports_croupier_agent_durak_agent_game_info_t *info) {
    rng_seed(&rng, info->seed);
    exports_croupier_agent_durak_agent_game_info_free(info); // arguments belong to the callee
}

exports_croupier_agent_durak_agent_action_t
exports_croupier_agent_durak_agent_decide(exports_croupier_agent_durak_agent_observation_t *obs, legal_t *legal,
                                          exports_croupier_agent_durak_agent_budget_t *budget) {
    (void)budget;
    int trump = suit(obs->trump);
    uint32_t action;
    if (has_kind(legal, LEAD) || has_kind(legal, LEAD_MANY)) {
        int c = cheapest(obs->hand, trump);
        action = c >= 0 ? choose(legal, act(LEAD, c, 0)) : (legal->len ? legal->ptr[0] : PASS);
    } else if (has_kind(legal, TAKE)) {
        action = defend(obs->hand, trump, &obs->table, legal);
    } else {
        action = throw_in(trump, legal);
    }
    exports_croupier_agent_durak_agent_observation_free(obs);
    exports_croupier_agent_durak_agent_list_action_free(legal);
    return action;
}
