//! A small, fast, deterministic hasher for the crate's own keys: the interpreter's name
//! tables, and the body indices (and pairs of them) the collider and the model update look up.
//!
//! Variable and command lookups happen on every command, and the collider looks up pairs of
//! bodies many times per collision, so the hash must be cheap (std's SipHash is several times
//! slower on short names and was a tenth of a pile's simulation time); nothing hashed here is
//! chosen by an attacker, so SipHash's flooding resistance buys nothing. Iteration order
//! (`array names`, `info vars`) must not change from run to run of the same scene, so it must
//! not be seeded randomly. This is the multiply-rotate hash rustc uses internally ("FxHash").

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

pub type FxHashMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;
pub type FxHashSet<K> = HashSet<K, BuildHasherDefault<FxHasher>>;

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

#[derive(Default, Clone, Copy)]
pub struct FxHasher {
    hash: u64,
}

impl FxHasher {
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            self.add(u64::from_le_bytes(chunk.try_into().expect("8 bytes")));
        }
        let mut tail = [0u8; 8];
        let rest = chunks.remainder();
        tail[..rest.len()].copy_from_slice(rest);
        self.add(u64::from_le_bytes(tail) ^ rest.len() as u64);
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    fn finish(&self) -> u64 {
        self.hash
    }
}
