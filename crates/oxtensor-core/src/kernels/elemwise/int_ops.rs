//! Elementwise math on integers with NumPy's results: wrapping
//! arithmetic, floored division and modulo (division by zero gives 0, as
//! NumPy returns with a warning), bitwise logic.

use super::map::{map1, map2};
use crate::error::{Error, Result};
use crate::scalar::ScalarKind;
use crate::tensor::{Element, Tensor};

/// The integer operations NumPy defines, per Rust integer type.
pub(crate) trait Int: Element + Ord {
    fn wadd(self, o: Self) -> Self;
    fn wsub(self, o: Self) -> Self;
    fn wmul(self, o: Self) -> Self;
    fn wneg(self) -> Self;
    fn wabs(self) -> Self;
    fn sign(self) -> Self;
    fn floor_div(self, o: Self) -> Self;
    fn floor_mod(self, o: Self) -> Self;
    fn wpow(self, o: Self) -> Self;
    fn and(self, o: Self) -> Self;
    fn or(self, o: Self) -> Self;
    fn xor(self, o: Self) -> Self;
    fn not(self) -> Self;
}

macro_rules! int_impl {
    ($($t:ty: $signed:expr),*) => {$(
        impl Int for $t {
            fn wadd(self, o: Self) -> Self { self.wrapping_add(o) }
            fn wsub(self, o: Self) -> Self { self.wrapping_sub(o) }
            fn wmul(self, o: Self) -> Self { self.wrapping_mul(o) }
            fn wneg(self) -> Self { self.wrapping_neg() }
            #[allow(unused_comparisons)]
            fn wabs(self) -> Self { if self < 0 { self.wrapping_neg() } else { self } }
            #[allow(unused_comparisons)]
            fn sign(self) -> Self { if self > 0 { 1 } else if self < 0 { (0 as $t).wrapping_sub(1) } else { 0 } }
            #[allow(unused_comparisons)]
            fn floor_div(self, o: Self) -> Self {
                if o == 0 { return 0; }
                // Wrapping: `MIN / -1` overflows; NumPy returns MIN (with a warning).
                let q = self.wrapping_div(o);
                if $signed && (self.wrapping_rem(o) != 0) && ((self < 0) != (o < 0)) { q.wrapping_sub(1) } else { q }
            }
            #[allow(unused_comparisons)]
            fn floor_mod(self, o: Self) -> Self {
                if o == 0 { return 0; }
                let r = self.wrapping_rem(o);
                if $signed && r != 0 && ((r < 0) != (o < 0)) { r.wrapping_add(o) } else { r }
            }
            // Square-and-multiply over the exponent's 64 bits: `wrapping_pow`
            // takes a u32, and truncating the exponent gives wrong powers.
            fn wpow(self, o: Self) -> Self {
                let (mut base, mut e, mut acc) = (self, o as u64, 1 as $t);
                while e > 0 {
                    if e & 1 == 1 { acc = acc.wrapping_mul(base); }
                    base = base.wrapping_mul(base);
                    e >>= 1;
                }
                acc
            }
            fn and(self, o: Self) -> Self { self & o }
            fn or(self, o: Self) -> Self { self | o }
            fn xor(self, o: Self) -> Self { self ^ o }
            fn not(self) -> Self { !self }
        }
    )*};
}
int_impl!(i8: true, i16: true, i32: true, i64: true, u8: false, u16: false, u32: false, u64: false);

/// Runs `k` on integer inputs of type `T` into `out`.
pub(crate) fn apply<T: Int>(k: ScalarKind, ins: &[&Tensor], out: &mut Tensor) -> Result<()> {
    use ScalarKind::*;
    let (a, b) = (ins[0], ins.get(1).copied());
    let two = || b.ok_or_else(|| Error::Type(format!("{} needs two inputs", k.name())));
    match k {
        Add => super::fold(ins, out, T::wadd)?,
        Mul => super::fold(ins, out, T::wmul)?,
        Sub => map2(a, two()?, out, T::wsub),
        IntDiv => map2(a, two()?, out, T::floor_div),
        Mod => map2(a, two()?, out, T::floor_mod),
        Pow => {
            check_exponents::<T>(two()?)?;
            map2(a, two()?, out, T::wpow)
        }
        Maximum => map2(a, two()?, out, |x: T, y: T| x.max(y)),
        Minimum => map2(a, two()?, out, |x: T, y: T| x.min(y)),
        Lt => map2(a, two()?, out, |x: T, y: T| x < y),
        Gt => map2(a, two()?, out, |x: T, y: T| x > y),
        Le => map2(a, two()?, out, |x: T, y: T| x <= y),
        Ge => map2(a, two()?, out, |x: T, y: T| x >= y),
        Eq => map2(a, two()?, out, |x: T, y: T| x == y),
        Neq => map2(a, two()?, out, |x: T, y: T| x != y),
        And => map2(a, two()?, out, T::and),
        Or => map2(a, two()?, out, T::or),
        Xor => map2(a, two()?, out, T::xor),
        Invert => map1(a, out, T::not),
        Neg => map1(a, out, T::wneg),
        Abs => map1(a, out, T::wabs),
        Sign => map1(a, out, T::sign),
        Sqr => map1(a, out, |x: T| x.wmul(x)),
        IsNan | IsInf => map1(a, out, |_: T| false),
        Clip => super::float_ops::clip_inputs::<T>(ins, two()?, out),
        other => {
            return Err(Error::Type(format!(
                "{} is not defined for {} inputs",
                other.name(),
                T::DTYPE
            )))
        }
    }
    Ok(())
}

/// NumPy refuses negative integer exponents.
fn check_exponents<T: Int>(exponents: &Tensor) -> Result<()> {
    let negative = (0..exponents.len())
        .any(|i| matches!(exponents.get(i), crate::tensor::Scalar::Int(v) if v < 0));
    if negative {
        return Err(Error::Value(
            "Integers to negative integer powers are not allowed.".into(),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floored_and_by_zero() {
        assert_eq!((-7i32).floor_div(2), -4);
        assert_eq!((-7i32).floor_mod(2), 1);
        assert_eq!(7i32.floor_mod(-2), -1);
        assert_eq!(5u8.floor_div(0), 0);
        assert_eq!(i8::MIN.wabs(), i8::MIN);
        assert_eq!(200u8.wadd(100), 44);
    }

    #[test]
    fn overflowing_division_and_powers_wrap() {
        let cases: [(i8, i8, i8, i8); 3] =
            [(i8::MIN, -1, i8::MIN, 0), (-128, 3, -43, 1), (7, -1, -7, 0)];
        for (x, y, q, r) in cases {
            assert_eq!((x.floor_div(y), x.floor_mod(y)), (q, r), "{x} divmod {y}");
        }
        assert_eq!(i64::MIN.floor_div(-1), i64::MIN);
        assert_eq!(2i64.wpow((1 << 32) + 1), 0);
        assert_eq!(3u8.wpow(5), 243);
        assert_eq!(3i16.wpow(11), 177147i64 as i16);
        assert_eq!((-1i64).wpow(1 << 40), 1);
        assert_eq!(0u64.wpow(0), 1);
    }
}
