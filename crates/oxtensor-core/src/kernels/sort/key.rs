//! Sort keys: every sortable dtype mapped to an unsigned integer of its
//! width whose integer order is NumPy's order (NaN last), so one radix sort
//! on integers sorts every dtype (`kernels/sort/radix.rs`).

use crate::tensor::Element;
use half::f16;

/// An unsigned integer key read one byte (radix digit) at a time.
pub trait RadixKey: Element + Ord {
    /// Bytes in the key: the number of radix digits.
    const BYTES: usize;
    /// Byte `i` (0 = least significant).
    fn byte(self, i: usize) -> usize;
    /// The key as a `u64` (same value).
    fn widen(self) -> u64;
    /// Sorts the keys in `data` into `out` with the CPU's vector sort when
    /// there is one for this width (`kernels/sort/simd.rs`); `false`, both
    /// untouched, if not.
    fn sort_vectorised(_data: &mut [Self], _out: &mut [Self]) -> bool {
        false
    }
    /// Whether [`RadixKey::sort_vectorised`] sorts on this CPU.
    fn has_vector_sort() -> bool {
        false
    }
}

macro_rules! radix_key {
    ($($u:ty $(=> $simd:ident, $detect:path)?),*) => {$(
        impl RadixKey for $u {
            const BYTES: usize = std::mem::size_of::<$u>();
            #[inline(always)]
            fn byte(self, i: usize) -> usize {
                (self >> (8 * i)) as usize & 0xFF
            }
            #[inline(always)]
            fn widen(self) -> u64 {
                u64::from(self)
            }
            $(
                #[cfg(target_arch = "x86_64")]
                fn sort_vectorised(data: &mut [$u], out: &mut [$u]) -> bool {
                    super::simd::$simd(data, out)
                }
                #[cfg(target_arch = "x86_64")]
                fn has_vector_sort() -> bool {
                    $detect().is_some()
                }
            )?
        }
    )*};
}
radix_key!(
    u8,
    u16 => sort_u16, super::simd_x86::U16x32::detect,
    u32 => sort_u32, super::simd_x86::U32x16::detect,
    u64 => sort_u64, super::simd_x86::U64x8::detect
);

/// An element with an order-preserving integer key.
pub trait SortKey: Element {
    /// The unsigned key type, as wide as the element.
    type Key: RadixKey;
    /// A key in NumPy's order that maps back to the element bit for bit
    /// (`sort` sorts keys and returns [`SortKey::from_key`] of them): -0.0
    /// sorts before 0.0 and NaNs after +inf; both are allowed orders of
    /// values that compare equal.
    fn key(self) -> Self::Key;
    /// The element whose [`SortKey::key`] is `k`.
    fn from_key(k: Self::Key) -> Self;
    /// A key equal for elements that compare equal (-0.0 and 0.0, all
    /// NaNs), for `argsort`, whose ties keep their input order.
    fn rank(self) -> Self::Key {
        self.key()
    }
    /// Whether every bit pattern of the key's width is an element (all
    /// numbers; not `bool`), see [`as_keys`].
    const ANY_BITS: bool = true;
}

/// The memory of `xs` seen as keys, for elements whose every bit pattern
/// is valid ([`SortKey::ANY_BITS`]), so that a vector sort can build its
/// keys in an output buffer; `None` otherwise.
pub fn as_keys<T: SortKey>(xs: &mut [T]) -> Option<&mut [T::Key]> {
    let same = std::mem::size_of::<T>() == std::mem::size_of::<T::Key>()
        && std::mem::align_of::<T>() == std::mem::align_of::<T::Key>();
    if !(same && T::ANY_BITS) {
        return None;
    }
    // SAFETY: the two types have the same size and alignment (checked),
    // every bit pattern is a value of either (unsigned keys; `ANY_BITS`),
    // and the view borrows `xs` mutably for as long as it lives.
    Some(unsafe { std::slice::from_raw_parts_mut(xs.as_mut_ptr().cast(), xs.len()) })
}

macro_rules! unsigned_key {
    ($($t:ty),*) => {$(
        impl SortKey for $t {
            type Key = $t;
            #[inline(always)]
            fn key(self) -> $t {
                self
            }
            #[inline(always)]
            fn from_key(k: $t) -> $t {
                k
            }
        }
    )*};
}
unsigned_key!(u8, u16, u32, u64);

/// Signed integers: flipping the sign bit puts negatives first.
macro_rules! signed_key {
    ($($t:ty => $u:ty),*) => {$(
        impl SortKey for $t {
            type Key = $u;
            #[inline(always)]
            fn key(self) -> $u {
                (self as $u) ^ (1 << (<$u>::BITS - 1))
            }
            #[inline(always)]
            fn from_key(k: $u) -> $t {
                (k ^ (1 << (<$u>::BITS - 1))) as $t
            }
        }
    )*};
}
signed_key!(i8 => u8, i16 => u16, i32 => u32, i64 => u64);

impl SortKey for bool {
    type Key = u8;
    const ANY_BITS: bool = false;
    #[inline(always)]
    fn key(self) -> u8 {
        u8::from(self)
    }
    #[inline(always)]
    fn from_key(k: u8) -> bool {
        k != 0
    }
}

/// IEEE floats from their bits. Flipping every bit of a negative and the
/// sign bit of a positive gives the usual monotone key, which puts
/// negative NaNs (sign bit set) first. Subtracting their count, `!(SIGN |
/// INF)`, rotates them past the positive NaNs to the end, and keeps the map
/// a bijection, so `from_key` restores NaN payloads too.
macro_rules! float_key {
    ($($t:ty => $u:ty, $to:expr, $from:expr, $inf:expr);*) => {$(
        impl SortKey for $t {
            type Key = $u;
            #[inline(always)]
            fn key(self) -> $u {
                monotone::<$u>($to(self)).wrapping_sub(!(<$u as SignBit>::SIGN | $inf))
            }
            #[inline(always)]
            fn from_key(k: $u) -> $t {
                let m = k.wrapping_add(!(<$u as SignBit>::SIGN | $inf));
                // Undo `monotone`: a set top bit marks a positive.
                let mask = if m & <$u as SignBit>::SIGN != 0 { <$u as SignBit>::SIGN } else { <$u>::MAX };
                $from(m ^ mask)
            }
            #[inline(always)]
            fn rank(self) -> $u {
                let bits = $to(self);
                let abs = bits & !<$u as SignBit>::SIGN;
                if abs > $inf {
                    <$u>::MAX
                } else if abs == 0 {
                    <$u as SignBit>::SIGN
                } else {
                    monotone::<$u>(bits)
                }
            }
        }
    )*};
}

/// The top bit of `u16`/`u32`/`u64` and the monotone float map on them.
trait SignBit: Copy + std::ops::BitXor<Output = Self> {
    const SIGN: Self;
    fn flip_mask(self) -> Self;
}

macro_rules! sign_bit {
    ($($u:ty => $i:ty),*) => {$(
        impl SignBit for $u {
            const SIGN: $u = 1 << (<$u>::BITS - 1);
            #[inline(always)]
            fn flip_mask(self) -> $u {
                // All ones for a negative (arithmetic shift), else the sign bit.
                ((self as $i) >> (<$u>::BITS - 1)) as $u | Self::SIGN
            }
        }
    )*};
}
sign_bit!(u16 => i16, u32 => i32, u64 => i64);

#[inline(always)]
fn monotone<U: SignBit>(bits: U) -> U {
    bits ^ bits.flip_mask()
}

float_key!(
    f16 => u16, f16::to_bits, f16::from_bits, 0x7C00;
    f32 => u32, f32::to_bits, f32::from_bits, 0x7F80_0000;
    f64 => u64, f64::to_bits, f64::from_bits, 0x7FF0_0000_0000_0000
);

#[cfg(test)]
mod tests {
    use super::*;

    fn nan_last(a: f64, b: f64) -> std::cmp::Ordering {
        a.partial_cmp(&b)
            .unwrap_or_else(|| a.is_nan().cmp(&b.is_nan()))
    }

    const EDGES: [f64; 12] = [
        f64::NEG_INFINITY,
        -1e300,
        -1.0,
        -5e-324,
        -0.0,
        0.0,
        5e-324,
        1.0,
        1e300,
        f64::INFINITY,
        f64::NAN,
        -f64::NAN,
    ];

    #[test]
    fn float_keys_order_like_numpy_and_round_trip() {
        for &a in &EDGES {
            for &b in &EDGES {
                let want = nan_last(a, b);
                if want != std::cmp::Ordering::Equal {
                    assert_eq!(a.key().cmp(&b.key()), want, "{a} vs {b}");
                    assert_eq!(a.rank().cmp(&b.rank()), want, "{a} vs {b}");
                    let (a32, b32) = (a as f32, b as f32);
                    if nan_last(a32 as f64, b32 as f64) == want {
                        assert_eq!(a32.key().cmp(&b32.key()), want, "{a32} vs {b32}");
                    }
                } else {
                    assert_eq!(a.rank(), b.rank(), "{a} vs {b}");
                }
            }
            assert_eq!(f64::from_key(a.key()).to_bits(), a.to_bits());
            let h = f16::from_f64(a);
            assert_eq!(f16::from_key(h.key()).to_bits(), h.to_bits());
        }
        assert!((-0.0f64).key() < 0.0f64.key());
        assert!((-f64::NAN).key() > f64::INFINITY.key());
    }

    #[test]
    fn integer_keys_order_and_round_trip() {
        let ints = [i64::MIN, -7, -1, 0, 1, i64::MAX];
        for w in ints.windows(2) {
            assert!(w[0].key() < w[1].key());
            assert!((w[0].clamp(-128, 127) as i8).key() <= (w[1].clamp(-128, 127) as i8).key());
        }
        for &i in &ints {
            assert_eq!(i64::from_key(i.key()), i);
            assert_eq!(i16::from_key((i as i16).key()), i as i16);
        }
        assert!(false.key() < true.key());
        assert!(bool::from_key(true.key()));
        assert_eq!(u32::from_key(7u32.key()), 7);
    }
}
