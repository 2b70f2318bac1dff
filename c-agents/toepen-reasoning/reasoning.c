// toepen/c-reasoning: the Rust `toepen/reasoning` in C, decision for decision. cli/tests/c.rs
// checks that both play byte-identical games under the same seed.
//
// - cannot follow suit: its lowest card;
// - can follow but cannot win the trick: the lowest card of the led suit;
// - can win: the lowest card that wins the trick as it stands;
// - leading: in tricks 1-2 its lowest card, in tricks 3-4 its highest.
// "Lowest" and "highest" are by Toepen strength (J < Q < K < A < 7 < 8 < 9 < 10), ties to the
// lower card code. It never knocks, stays when another player knocks, claims no laundry and
// challenges nobody.
//
// Cards are bytes: suit * 13 + (rank - 2); a set is a u64 with bit `card` set. Actions are
// u32: `play` is 1 | card << 8, the others their kind alone (wit/v0.2/toepen.wit).
#include "toepen.h"

enum { PLAY = 1, KNOCK = 2, NO_KNOCK = 3, STAY = 4, NO_CLAIM = 8, NO_CHALLENGE = 10 };

typedef exports_croupier_agent_toepen_agent_list_action_t legal_t;

static int suit(int card) { return card / 13; }

// Toepen strength: J Q K A 7 8 9 10 are 1..8; other ranks 0.
static int strength(int card) {
    int r = card % 13 + 2;
    if (r >= 11 && r <= 14) return r - 10;
    if (r >= 7 && r <= 10) return r - 2;
    return 0;
}

// Whether `a` is weaker than `b`: by strength, ties to the lower code.
static int weaker(int a, int b) { return strength(a) < strength(b) || (strength(a) == strength(b) && a < b); }

static int lowest(uint64_t cards) {
    int best = -1;
    for (int c = 0; c < 52; c++)
        if ((cards >> c & 1) && (best < 0 || weaker(c, best))) best = c;
    return best;
}

static int highest(uint64_t cards) {
    int best = -1;
    for (int c = 0; c < 52; c++)
        if ((cards >> c & 1) && (best < 0 || weaker(best, c))) best = c;
    return best;
}

static unsigned bit(int seat) { return seat >= 0 && seat < 8 ? 1u << seat : 0; }

static int is_legal(const legal_t *legal, uint32_t a) {
    for (size_t i = 0; i < legal->len; i++)
        if (legal->ptr[i] == a) return 1;
    return 0;
}

// The first legal action that is not a knock (else the first).
static uint32_t fallback(const legal_t *legal) {
    for (size_t i = 0; i < legal->len; i++)
        if (legal->ptr[i] != KNOCK) return legal->ptr[i];
    return legal->len ? legal->ptr[0] : NO_CLAIM;
}

// The cautious answer to a decision that is not a card play (toepen_common::default_answer).
static uint32_t cautious(int decision, const legal_t *legal) {
    uint32_t wanted = 0;
    switch (decision) {
    case CROUPIER_AGENT_TOEPEN_TYPES_DECISION_KNOCK_WINDOW: wanted = NO_KNOCK; break;
    case CROUPIER_AGENT_TOEPEN_TYPES_DECISION_KNOCK_RESPONSE:
    case CROUPIER_AGENT_TOEPEN_TYPES_DECISION_POVERTY: wanted = STAY; break;
    case CROUPIER_AGENT_TOEPEN_TYPES_DECISION_LAUNDRY: wanted = NO_CLAIM; break;
    case CROUPIER_AGENT_TOEPEN_TYPES_DECISION_LAUNDRY_CHALLENGE: wanted = NO_CHALLENGE; break;
    }
    return wanted && is_legal(legal, wanted) ? wanted : fallback(legal);
}

static uint32_t play(const exports_croupier_agent_toepen_agent_observation_t *obs, const legal_t *legal) {
    uint64_t cards = 0;
    for (size_t i = 0; i < legal->len; i++)
        if ((legal->ptr[i] & 0xff) == PLAY) cards |= 1ull << ((legal->ptr[i] >> 8) & 0xff);
    if (!cards) return fallback(legal);
    const uint8_t *t = obs->trick.ptr; // (seat, card) pairs in play order
    size_t n = obs->trick.len / 2;
    int card;
    if (n == 0) {
        card = obs->trick_no <= 2 ? lowest(cards) : highest(cards);
    } else {
        int led = suit(t[1]), best = -1;
        for (size_t i = 0; i < n; i++) {
            int s = t[2 * i], c = t[2 * i + 1];
            if (suit(c) == led && !(obs->dead & bit(s)) && (best < 0 || strength(c) > strength(best))) best = c;
        }
        uint64_t winners = 0;
        for (int c = 0; c < 52; c++)
            if ((cards >> c & 1) && suit(c) == led && (best < 0 || strength(c) > strength(best)))
                winners |= 1ull << c;
        card = lowest(winners ? winners : cards);
    }
    return PLAY | (uint32_t)card << 8;
}

void exports_croupier_agent_toepen_agent_start(exports_croupier_agent_toepen_agent_game_info_t *info) {
    exports_croupier_agent_toepen_agent_game_info_free(info); // arguments belong to the callee
}

exports_croupier_agent_toepen_agent_action_t
exports_croupier_agent_toepen_agent_decide(exports_croupier_agent_toepen_agent_observation_t *obs, legal_t *legal,
                                           exports_croupier_agent_toepen_agent_budget_t *budget) {
    (void)budget;
    uint32_t action = obs->decision == CROUPIER_AGENT_TOEPEN_TYPES_DECISION_PLAY ? play(obs, legal)
                                                                                : cautious(obs->decision, legal);
    exports_croupier_agent_toepen_agent_observation_free(obs);
    exports_croupier_agent_toepen_agent_list_action_free(legal);
    return action;
}
