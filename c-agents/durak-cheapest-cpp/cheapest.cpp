// durak/cpp-cheapest: the Rust `durak/cheapest` in C++ (C++20, libc++), decision for decision;
// cli/tests/c.rs checks that both play byte-identical games under the same seed. The same
// strategy as c-agents/durak-cheapest, written as a C++ student would: value types, the
// standard algorithms, and the C bindings' structs read through small views.
//
// Cards are bytes: suit * 13 + (rank - 2); a set of cards is a u64 with bit `card` set.
// Actions are u32: kind | a << 8 | b << 16 (wit/v0.2/durak.wit).
#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "croupier_rng.h"
#include "durak.h"

namespace {

enum Kind : uint32_t { LEAD = 1, LEAD_MANY = 2, BEAT = 3, TRANSFER = 4, TAKE = 6, THROW_IN = 7, PASS = 8 };

struct Card {
    int code;
    int suit() const { return code / 13; }
    int rank() const { return code % 13 + 2; }
};

using Action = uint32_t;
Action act(Kind k, int a = 0, int b = 0) { return k | uint32_t(a) << 8 | uint32_t(b) << 16; }
Kind kind_of(Action a) { return Kind(a & 0xff); }
Card card_of(Action a) { return Card{int((a >> 8) & 0xff)}; }

std::vector<Card> cards(uint64_t set) {
    std::vector<Card> out;
    for (int c = 0; c < 64; c++)
        if (set >> c & 1) out.push_back(Card{c});
    return out;
}

// "Cheapness": any plain card before any trump, then lower rank, then suit order.
auto cheap_key(int trump) {
    return [trump](Card c) { return (c.suit() == trump) * 1000 + c.rank() * 4 + c.suit(); };
}

std::optional<Card> cheapest(const std::vector<Card> &cs, int trump) {
    if (cs.empty()) return std::nullopt;
    auto key = cheap_key(trump);
    return *std::min_element(cs.begin(), cs.end(), [&](Card a, Card b) { return key(a) < key(b); });
}

struct Decision {
    std::span<const Action> legal;
    bool has(Kind k) const {
        return std::any_of(legal.begin(), legal.end(), [k](Action a) { return kind_of(a) == k; });
    }
    // `wanted` if it is legal, else the first legal action.
    Action choose(Action wanted) const {
        if (std::find(legal.begin(), legal.end(), wanted) != legal.end()) return wanted;
        return legal.empty() ? Action(PASS) : legal.front();
    }
};

game_rng rng; // one game per instance: `start` reseeds it

// The card that beats `attack`: the cheapest higher card of its suit; for a plain card
// without one, the cheapest trump.
std::optional<Card> cover(uint64_t hand, int trump, Card attack) {
    for (Card c : cards(hand))
        if (c.suit() == attack.suit() && c.rank() > attack.rank()) return c;
    if (attack.suit() == trump) return std::nullopt;
    std::vector<Card> trumps;
    for (Card c : cards(hand))
        if (c.suit() == trump) trumps.push_back(c);
    return cheapest(trumps, trump);
}

Action defend(uint64_t hand, int trump, std::span<const croupier_agent_durak_types_bout_card_t> table,
              const Decision &d) {
    // Plan the whole table greedily; play the plan's first step if every card can be beaten.
    std::optional<Action> first;
    bool planned = true;
    for (size_t slot = 0; slot < table.size(); slot++) {
        if (table[slot].defence.is_some) continue;
        auto c = cover(hand, trump, Card{table[slot].attack});
        if (!c) {
            planned = false;
            break;
        }
        hand &= ~(uint64_t(1) << c->code);
        if (!first) first = act(BEAT, c->code, int(slot));
    }
    if (planned && first) return d.choose(*first);
    // Transfer only while nothing is beaten, with the cheapest plain card the rules allow.
    bool any_beaten = std::any_of(table.begin(), table.end(), [](auto &b) { return b.defence.is_some; });
    if (!any_beaten) {
        std::vector<Card> plain;
        for (Action a : d.legal)
            if (kind_of(a) == TRANSFER && card_of(a).suit() != trump) plain.push_back(card_of(a));
        if (auto c = cheapest(plain, trump)) return act(TRANSFER, c->code);
    }
    return d.choose(act(TAKE));
}

Action throw_in(int trump, const Decision &d) {
    // A random plain card among the legal throw-ins, in card order, as the Rust CardSet.
    uint64_t set = 0;
    for (Action a : d.legal)
        if (kind_of(a) == THROW_IN && card_of(a).suit() != trump) set |= uint64_t(1) << card_of(a).code;
    auto plain = cards(set);
    if (plain.empty()) return d.choose(act(PASS));
    return act(THROW_IN, plain[rng_below(&rng, plain.size())].code);
}

} // namespace

extern "C" {

void exports_croupier_agent_durak_agent_start(exports_croupier_agent_durak_agent_game_info_t *info) {
    rng_seed(&rng, info->seed);
    exports_croupier_agent_durak_agent_game_info_free(info); // arguments belong to the callee
}

exports_croupier_agent_durak_agent_action_t
exports_croupier_agent_durak_agent_decide(exports_croupier_agent_durak_agent_observation_t *obs,
                                          exports_croupier_agent_durak_agent_list_action_t *legal,
                                          exports_croupier_agent_durak_agent_budget_t *budget) {
    (void)budget;
    Decision d{std::span<const Action>(legal->ptr, legal->len)};
    int trump = Card{obs->trump}.suit();
    Action action;
    if (d.has(LEAD) || d.has(LEAD_MANY)) {
        auto c = cheapest(cards(obs->hand), trump);
        action = c ? d.choose(act(LEAD, c->code)) : d.choose(act(PASS));
    } else if (d.has(TAKE)) {
        action = defend(obs->hand, trump, {obs->table.ptr, obs->table.len}, d);
    } else {
        action = throw_in(trump, d);
    }
    exports_croupier_agent_durak_agent_observation_free(obs);
    exports_croupier_agent_durak_agent_list_action_free(legal);
    return action;
}

} // extern "C"
