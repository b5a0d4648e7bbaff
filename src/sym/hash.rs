//! A fast hasher for the pool's internal tables.
//!
//! Every key hashed here is a small integer or a bit pattern the pool produced itself (node ids,
//! symbols, f64 bits), never text from outside, so a multiply-rotate mix is enough and much
//! cheaper than the standard library's DoS-resistant SipHash. Expression building is dominated
//! by these lookups.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A `HashMap` using [`FastHasher`].
pub(crate) type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;

/// Multiply-rotate hasher over 64-bit words.
#[derive(Clone, Copy, Default)]
pub(crate) struct FastHasher(u64);

/// An odd constant with well-spread bits (from the golden ratio).
const MIX: u64 = 0x9e37_79b9_7f4a_7c15;

impl FastHasher {
    fn mix(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(MIX);
    }
}

impl Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.mix(u64::from_le_bytes(word));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.mix(u64::from(i));
    }

    fn write_u32(&mut self, i: u32) {
        self.mix(u64::from(i));
    }

    fn write_u64(&mut self, i: u64) {
        self.mix(i);
    }

    fn write_usize(&mut self, i: usize) {
        self.mix(i as u64);
    }

    fn finish(&self) -> u64 {
        // The multiply leaves the low bits weakly mixed; fold the high half in.
        self.0 ^ (self.0 >> 29)
    }
}
