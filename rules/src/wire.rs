//! The observation on the wire: a compact byte encoding of each game's `Observation`, written
//! by the host and read back by the Rust SDK inside the agent (contract 0.3.0 sends it as one
//! `list<u8>`). Measured against the other shapes a decision could take in
//! docs/benchmarks-history.md#contract-030-the-candidates-measured-and-the-one-chosen-issue-19-2026-11-26:
//! one list is one allocation in the guest and one copy, where 0.2.0's typed record cost a
//! lowering per field and an allocation per list.
//!
//! The format, version 1 (frozen with contract 0.3.0): fields in declaration order, no names,
//! no padding; `u8`, `bool` (0 or 1) and enums (variant index) as one byte; wider integers
//! little-endian at their own width; a card as its code, a card set as its 64-bit mask;
//! `Option<T>` as a byte 0 or 1 and then `T`; a list as its length (`u16`) and then its items.
//! Each observation's field list is checked against the struct at compile time (the macro
//! destructures without `..`), so a field added to an observation stops the build until it
//! is put on the wire; and a change to the format is a new contract version.
//!
//! Every impl is `#[inline]`: the host encodes in a release build split into codegen units,
//! where calls between them are otherwise not inlined (measured natively on 15 000 Durak
//! `teams` observations: encode 63–80 → 40 ns, decode 121–153 → 60 ns; a hand-written codec
//! of the same fields decodes in about 30 ns, the price of one generic format for all games).
//! The decoding side is `#[inline(always)]`: inside the agent, LLVM otherwise kept each list's
//! `get` as a function of its own, and the reader went through linear memory at every byte.
//! One decode is then one function with the reader in locals: 178 → 122 ns per Durak
//! observation inside the sandbox (`scripts/bench-contract.sh`, best of 11 alternating runs).
//!
//! Threat model: the agent decodes what the host wrote, but the agent's own code must never
//! panic on any input: [`Wire::get`] returns `None` for truncated or malformed bytes (an
//! unknown enum index, a card code out of range, trailing bytes), never indexes past the end
//! and never allocates more than the input could describe (a list's length is checked
//! against what is left of the input before anything is reserved).

use crate::cards::{Card, CardSet};

/// A value that goes on the wire. `get` decodes into `self`, reusing its allocations (the
/// SDK refills the previous decision's observation, as it did with 0.2.0's records).
pub trait Wire {
    /// Appends the encoding of `self`.
    fn put(&self, out: &mut Vec<u8>);
    /// Replaces `self` with the value read from the front of `r`; `None` if the bytes are not
    /// an encoding (then `self` holds some value of its type, unspecified).
    fn get(&mut self, r: &mut Reader) -> Option<()>;
}

/// A value that can be an item of a list or an option: it has a value to decode into, and a
/// least size on the wire (which bounds a list's length by what is left of the input).
pub trait Item: Wire + Sized {
    /// A value to decode into (zeros, empty lists, `None`).
    fn blank() -> Self;
    /// The fewest bytes an encoding takes.
    const MIN: usize;
    /// Appends the items of a list, after its length.
    #[inline]
    fn put_all(items: &[Self], out: &mut Vec<u8>) {
        for v in items {
            v.put(out);
        }
    }
    /// Replaces `items` with `n` items read from `r`, reusing what `items` holds.
    #[inline(always)]
    fn get_all(items: &mut Vec<Self>, n: usize, r: &mut Reader) -> Option<()> {
        items.truncate(n);
        for v in items.iter_mut() {
            v.get(r)?;
        }
        while items.len() < n {
            let mut v = Self::blank();
            v.get(r)?;
            items.push(v);
        }
        Some(())
    }
}

/// What is left of the input.
pub struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    /// Reads `bytes` from the start.
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader(bytes)
    }
    #[inline(always)]
    fn take<const N: usize>(&mut self) -> Option<[u8; N]> {
        let (head, rest) = self.0.split_first_chunk::<N>()?;
        self.0 = rest;
        Some(*head)
    }
    #[inline]
    fn left(&self) -> usize {
        self.0.len()
    }
    #[inline(always)]
    fn take_slice(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = self.0.split_at_checked(n)?;
        self.0 = rest;
        Some(head)
    }
}

/// Encodes `value` into `out` (cleared first).
pub fn encode<T: Wire>(value: &T, out: &mut Vec<u8>) {
    out.clear();
    value.put(out);
}

/// Decodes all of `bytes` into `into`; `None` for anything that is not exactly one encoding.
pub fn decode<T: Wire>(bytes: &[u8], into: &mut T) -> Option<()> {
    let mut r = Reader::new(bytes);
    into.get(&mut r)?;
    (r.left() == 0).then_some(())
}

macro_rules! int {
    ($($t:ty),*) => {$(
        impl Wire for $t {
            #[inline]
            fn put(&self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            #[inline(always)]
            fn get(&mut self, r: &mut Reader) -> Option<()> {
                *self = <$t>::from_le_bytes(r.take()?);
                Some(())
            }
        }
    )*};
}
int!(u8, i8, u16, u32, i64, u64);

macro_rules! int_item {
    ($($t:ty),*) => {$(
        impl Item for $t {
            #[inline]
            fn blank() -> Self {
                0
            }
            const MIN: usize = std::mem::size_of::<$t>();
        }
    )*};
}
int_item!(i8, u16, u32, i64, u64);

/// Lists of bytes (hand sizes, places, seats) are encoded whole, and decoded with a loop of
/// pushes: a copy of a slice becomes `memory.copy` in the agent, which wasmtime runs as a call
/// out of the sandbox, and these lists hold one byte per seat.
impl Item for u8 {
    #[inline]
    fn blank() -> Self {
        0
    }
    const MIN: usize = 1;
    #[inline]
    fn put_all(items: &[u8], out: &mut Vec<u8>) {
        out.extend_from_slice(items);
    }
    #[inline(always)]
    fn get_all(items: &mut Vec<u8>, n: usize, r: &mut Reader) -> Option<()> {
        let bytes = r.take_slice(n)?;
        items.clear();
        items.reserve(n);
        for &b in bytes {
            items.push(b);
        }
        Some(())
    }
}

impl Wire for bool {
    #[inline]
    fn put(&self, out: &mut Vec<u8>) {
        out.push(*self as u8);
    }
    #[inline(always)]
    fn get(&mut self, r: &mut Reader) -> Option<()> {
        *self = match r.take::<1>()? {
            [0] => false,
            [1] => true,
            _ => return None,
        };
        Some(())
    }
}

impl Item for bool {
    #[inline]
    fn blank() -> Self {
        false
    }
    const MIN: usize = 1;
}

impl Wire for Card {
    #[inline]
    fn put(&self, out: &mut Vec<u8>) {
        out.push(self.code());
    }
    #[inline(always)]
    fn get(&mut self, r: &mut Reader) -> Option<()> {
        *self = Card::from_code(r.take::<1>()?[0])?;
        Some(())
    }
}

impl Item for Card {
    #[inline]
    fn blank() -> Self {
        Card::new(2, crate::Suit::Clubs)
    }
    const MIN: usize = 1;
}

impl Wire for CardSet {
    #[inline]
    fn put(&self, out: &mut Vec<u8>) {
        self.bits().put(out);
    }
    #[inline(always)]
    fn get(&mut self, r: &mut Reader) -> Option<()> {
        let bits = u64::from_le_bytes(r.take()?);
        // Only the 52 card bits exist.
        if bits >> 52 != 0 {
            return None;
        }
        *self = CardSet(bits);
        Some(())
    }
}

impl Item for CardSet {
    #[inline]
    fn blank() -> Self {
        CardSet::EMPTY
    }
    const MIN: usize = 8;
}

impl<T: Item> Wire for Option<T> {
    #[inline]
    fn put(&self, out: &mut Vec<u8>) {
        match self {
            None => out.push(0),
            Some(v) => {
                out.push(1);
                v.put(out);
            }
        }
    }
    #[inline(always)]
    fn get(&mut self, r: &mut Reader) -> Option<()> {
        match r.take::<1>()? {
            [0] => *self = None,
            [1] => {
                // Reuse the value inside when there is one (a list inside an option).
                let v = self.get_or_insert_with(T::blank);
                v.get(r)?;
            }
            _ => return None,
        }
        Some(())
    }
}

impl<T: Item> Item for Option<T> {
    #[inline]
    fn blank() -> Self {
        None
    }
    const MIN: usize = 1;
}

impl<T: Item> Wire for Vec<T> {
    #[inline]
    fn put(&self, out: &mut Vec<u8>) {
        // No observation has a list near 65 535 items (the longest is UNO's discard pile,
        // at most its 108 cards); the host's own encoder is the only writer.
        let n = self.len().min(u16::MAX as usize);
        (n as u16).put(out);
        T::put_all(&self[..n], out);
    }
    #[inline(always)]
    fn get(&mut self, r: &mut Reader) -> Option<()> {
        let n = u16::from_le_bytes(r.take()?) as usize;
        // A hostile length cannot make the decoder reserve more than the input could hold.
        if n.checked_mul(T::MIN)? > r.left() {
            return None;
        }
        T::get_all(self, n, r)
    }
}

impl<T: Item> Item for Vec<T> {
    #[inline]
    fn blank() -> Self {
        Vec::new()
    }
    const MIN: usize = 2;
}

impl<T: Item + Copy, const N: usize> Wire for [T; N] {
    #[inline]
    fn put(&self, out: &mut Vec<u8>) {
        for v in self {
            v.put(out);
        }
    }
    #[inline(always)]
    fn get(&mut self, r: &mut Reader) -> Option<()> {
        for v in self.iter_mut() {
            v.get(r)?;
        }
        Some(())
    }
}

impl<T: Item + Copy, const N: usize> Item for [T; N] {
    #[inline]
    fn blank() -> Self {
        [T::blank(); N]
    }
    const MIN: usize = T::MIN * N;
}

impl<A: Item, B: Item> Wire for (A, B) {
    #[inline]
    fn put(&self, out: &mut Vec<u8>) {
        self.0.put(out);
        self.1.put(out);
    }
    #[inline(always)]
    fn get(&mut self, r: &mut Reader) -> Option<()> {
        self.0.get(r)?;
        self.1.get(r)
    }
}

impl<A: Item, B: Item> Item for (A, B) {
    #[inline]
    fn blank() -> Self {
        (A::blank(), B::blank())
    }
    const MIN: usize = A::MIN + B::MIN;
}

/// A field-less enum as its variant index (one byte). Unknown indices do not decode.
macro_rules! wire_enum {
    ($t:ty { $($v:ident),* $(,)? }) => {
        impl $crate::wire::Wire for $t {
            #[inline]
            fn put(&self, out: &mut Vec<u8>) {
                const ALL: &[$t] = &[$(<$t>::$v),*];
                // The position in ALL is the index; every variant is listed (the match in
                // `blank` below does not compile otherwise).
                let i = ALL.iter().position(|v| v == self).unwrap_or(0);
                out.push(i as u8);
            }
            #[inline(always)]
            fn get(&mut self, r: &mut $crate::wire::Reader) -> Option<()> {
                const ALL: &[$t] = &[$(<$t>::$v),*];
                let [i] = r.take_byte()?;
                *self = *ALL.get(i as usize)?;
                Some(())
            }
        }
        impl $crate::wire::Item for $t {
            #[inline]
            fn blank() -> Self {
                const ALL: &[$t] = &[$(<$t>::$v),*];
                // Exhaustive: adding a variant to the enum stops the build here.
                #[allow(unreachable_patterns)]
                match ALL[0] {
                    $(<$t>::$v => {})*
                }
                ALL[0]
            }
            const MIN: usize = 1;
        }
    };
}

/// A struct as its fields in order, and an `Item` whose blank has every field blank. The
/// destructuring has no `..`: a field missing from the list, or one added to the struct
/// later, stops the build.
macro_rules! wire_struct {
    ($t:ident { $($f:ident),* $(,)? }) => {
        impl $crate::wire::Wire for $t {
            #[inline]
            fn put(&self, out: &mut Vec<u8>) {
                let $t { $($f),* } = self;
                $( $crate::wire::Wire::put($f, out); )*
            }
            #[inline(always)]
            fn get(&mut self, r: &mut $crate::wire::Reader) -> Option<()> {
                let $t { $($f),* } = self;
                $( $crate::wire::Wire::get($f, r)?; )*
                Some(())
            }
        }
        impl $crate::wire::Item for $t {
            /// Every field blank: a value to decode the first observation of a game into.
            #[inline]
            fn blank() -> Self {
                $t { $($f: $crate::wire::Item::blank()),* }
            }
            // A lower bound is all a list needs; no observation is a list item.
            const MIN: usize = 0;
        }
    };
}

impl Reader<'_> {
    /// One byte (what the enum and UNO card impls read).
    #[inline(always)]
    pub(crate) fn take_byte(&mut self) -> Option<[u8; 1]> {
        self.take::<1>()
    }
}

// ---- Version 1 of each game's observation (contract 0.3.0). ----

mod durak_v1 {
    use crate::Suit;
    use crate::durak::{Observation, Phase};

    wire_enum!(Suit {
        Clubs,
        Diamonds,
        Hearts,
        Spades
    });
    wire_enum!(Phase {
        Lead,
        Defend,
        ThrowIn,
        Over
    });
    wire_struct!(Observation {
        seat,
        acting_for,
        players,
        teams,
        trump,
        trump_suit,
        trump_holder,
        talon,
        hand,
        hand_sizes,
        out,
        phase,
        attacker,
        defender,
        h0,
        limit,
        taking,
        passed,
        table,
        shown,
        discard,
        known,
        unseen,
        bout,
        attackers,
        leader,
        dealer,
        finish,
        own_known,
        low_trumps,
        low_trump_room,
    });
}

mod toepen_v1 {
    use crate::toepen::{Decision, Observation};

    wire_enum!(Decision {
        Laundry,
        LaundryChallenge,
        Poverty,
        Play,
        KnockWindow,
        KnockResponse,
        Over,
    });
    wire_struct!(Observation {
        seat,
        players,
        decision,
        round,
        dealer,
        hand,
        scores,
        eliminated,
        live,
        stake,
        last_knocker,
        stock,
        trick_no,
        leader,
        trick,
        trick_winners,
        played,
        hand_counts,
        voids,
        unseen,
        own_laundry,
        revealed,
        to_act,
        dealt,
        fold_stakes,
        dead,
        past_tricks,
        poor,
        laundry_done,
        claimed,
        white_claims,
        challenged,
        returned,
        revealed_by,
        claimant,
        poverty_done,
        knock_window,
        hand_knowers,
        stock_knowers,
        known_cards,
        known_stock,
        eliminated_at,
    });
}

mod uno_v1 {
    use super::{Item, Reader, Wire};
    use crate::uno::{Color, Decision, Observation, UnoCard, Wd4Pending};

    impl Wire for UnoCard {
        #[inline]
        fn put(&self, out: &mut Vec<u8>) {
            out.push(self.0);
        }
        #[inline(always)]
        fn get(&mut self, r: &mut Reader) -> Option<()> {
            let [c] = r.take_byte()?;
            // 0..52 coloured cards, 52 Wild, 53 Wild Draw Four.
            if c > 53 {
                return None;
            }
            self.0 = c;
            Some(())
        }
    }
    impl Item for UnoCard {
        #[inline]
        fn blank() -> Self {
            UnoCard(0)
        }
        const MIN: usize = 1;
    }

    wire_enum!(Color {
        Red,
        Yellow,
        Green,
        Blue
    });
    wire_enum!(Decision {
        ChooseStartColor,
        Turn,
        AfterDraw,
        Wd4Challenge,
        PenaltyTurn,
        UnoCatch,
        Over,
    });
    wire_struct!(Wd4Pending {
        offender,
        victim,
        prev_color,
        prev_top,
        hand_len,
        hand,
    });
    wire_struct!(Observation {
        seat,
        players,
        decision,
        hand_no,
        dealer,
        hand,
        top,
        color,
        direction,
        pending,
        hand_sizes,
        draw_pile,
        discard_pile,
        scores,
        drawn,
        unseen,
        to_act,
        discard,
        turns,
        known,
        color_caps,
        kind_caps,
        offender,
        wd4,
    });
}
