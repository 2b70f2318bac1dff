// Candidate (e) of the contract probe: Durak's observation as bytes in a codec the rules
// crate would own, so that the host encodes with it and the Rust SDK decodes with it; the
// agent's author never sees the bytes. Included by the host example and the probe's guest.

use croupier_rules::durak::{Observation, Phase};
use croupier_rules::{Card, CardSet};

fn set(out: &mut Vec<u8>, s: CardSet) {
    out.extend_from_slice(&s.bits().to_le_bytes());
}

/// Appends `o` to `out` (cleared first).
pub fn encode(o: &Observation, out: &mut Vec<u8>) {
    out.clear();
    let phase = match o.phase {
        Phase::Lead => 0,
        Phase::Defend => 1,
        Phase::ThrowIn => 2,
        Phase::Over => 3,
    };
    out.extend_from_slice(&[
        o.seat,
        o.acting_for,
        o.players,
        o.teams as u8,
        o.trump.code(),
        o.trump_holder.map_or(255, |s| s),
        o.talon,
        o.out,
        phase,
        o.attacker,
        o.defender,
        o.h0,
        o.limit,
        o.taking as u8,
        o.passed,
        o.leader,
        o.dealer,
        o.table.len() as u8,
    ]);
    out.extend_from_slice(&o.bout.to_le_bytes());
    for s in [
        o.hand,
        o.shown,
        o.discard,
        o.unseen,
        o.own_known,
        o.low_trumps,
    ] {
        set(out, s);
    }
    for (i, (a, d)) in o.table.iter().enumerate() {
        out.extend_from_slice(&[
            a.code(),
            d.map_or(255, |c| c.code()),
            o.attackers.get(i).copied().unwrap_or(0),
        ]);
    }
    for s in 0..o.players as usize {
        out.extend_from_slice(&[
            o.hand_sizes.get(s).copied().unwrap_or(0),
            o.finish.get(s).copied().unwrap_or(0),
            o.low_trump_room.get(s).copied().unwrap_or(0),
        ]);
        set(out, o.known.get(s).copied().unwrap_or(CardSet::EMPTY));
    }
}

struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn bytes<const N: usize>(&mut self) -> Option<[u8; N]> {
        let (head, rest) = self.0.split_first_chunk::<N>()?;
        self.0 = rest;
        Some(*head)
    }
    fn set(&mut self) -> Option<CardSet> {
        Some(CardSet(u64::from_le_bytes(self.bytes::<8>()?)))
    }
}

fn card(code: u8) -> Option<Card> {
    Card::from_code(code)
}

/// Decodes into `o`, reusing its vectors; `None` for bytes that are not an encoding.
pub fn decode(b: &[u8], o: &mut Observation) -> Option<()> {
    let mut r = Reader(b);
    let h = r.bytes::<18>()?;
    o.seat = h[0];
    o.acting_for = h[1];
    o.players = h[2];
    o.teams = h[3] != 0;
    o.trump = card(h[4])?;
    o.trump_suit = o.trump.suit();
    o.trump_holder = (h[5] != 255).then_some(h[5]);
    o.talon = h[6];
    o.out = h[7];
    o.phase = match h[8] {
        0 => Phase::Lead,
        1 => Phase::Defend,
        2 => Phase::ThrowIn,
        _ => Phase::Over,
    };
    o.attacker = h[9];
    o.defender = h[10];
    o.h0 = h[11];
    o.limit = h[12];
    o.taking = h[13] != 0;
    o.passed = h[14];
    o.leader = h[15];
    o.dealer = h[16];
    let table = h[17] as usize;
    o.bout = u16::from_le_bytes(r.bytes::<2>()?);
    o.hand = r.set()?;
    o.shown = r.set()?;
    o.discard = r.set()?;
    o.unseen = r.set()?;
    o.own_known = r.set()?;
    o.low_trumps = r.set()?;
    o.table.clear();
    o.attackers.clear();
    for _ in 0..table {
        let [a, d, by] = r.bytes::<3>()?;
        o.table
            .push((card(a)?, if d == 255 { None } else { Some(card(d)?) }));
        o.attackers.push(by);
    }
    o.hand_sizes.clear();
    o.finish.clear();
    o.low_trump_room.clear();
    o.known.clear();
    for _ in 0..o.players {
        let [n, f, room] = r.bytes::<3>()?;
        o.hand_sizes.push(n);
        o.finish.push(f);
        o.low_trump_room.push(room);
        o.known.push(r.set()?);
    }
    r.0.is_empty().then_some(())
}
