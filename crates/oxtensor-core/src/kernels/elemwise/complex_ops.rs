//! Elementwise math on complex numbers (`num-complex`), with NumPy's
//! definitions where the textbook ones differ: lexicographic ordering for
//! comparisons and `maximum`/`minimum`, `sign(z) = z / |z|`, exact integer
//! powers.

use super::map::{map1, map1_slices, map2};
use crate::error::{Error, Result};
use crate::kernels::vmath::{complex_parts, Lane};
use crate::kernels::Work;
use crate::scalar::ScalarKind;
use crate::tensor::{Element, Tensor};
use num_complex::{Complex, ComplexFloat};
use num_traits::{Float, One, Zero};

type C<T> = Complex<T>;

/// NumPy's complex ordering (`CLT`/`CLE` in `loops.c.src`): by real part,
/// then imaginary part; a NaN imaginary part makes a real-part win false.
fn lt<T: Float>(x: C<T>, y: C<T>) -> bool {
    (x.re < y.re && !x.im.is_nan() && !y.im.is_nan()) || (x.re == y.re && x.im < y.im)
}

fn le<T: Float>(x: C<T>, y: C<T>) -> bool {
    (x.re < y.re && !x.im.is_nan() && !y.im.is_nan()) || (x.re == y.re && x.im <= y.im)
}

fn has_nan<T: Float>(x: C<T>) -> bool {
    x.re.is_nan() || x.im.is_nan()
}

/// `np.maximum`: the first operand when it has a NaN or is not smaller.
pub(crate) fn maximum<T: Float>(x: C<T>, y: C<T>) -> C<T> {
    if has_nan(x) || le(y, x) {
        x
    } else {
        y
    }
}

/// `np.minimum`: the first operand when it has a NaN or is not larger.
pub(crate) fn minimum<T: Float>(x: C<T>, y: C<T>) -> C<T> {
    if has_nan(x) || le(x, y) {
        x
    } else {
        y
    }
}

/// `np.sign` (NumPy 2): `z / |z|`, with NumPy's choices for zero, NaN and
/// infinite parts.
fn sign<T: Float>(z: C<T>) -> C<T> {
    let (zero, one) = (T::zero(), T::one());
    let unit = |v: T| if v > zero { one } else { -one };
    let norm = z.re.hypot(z.im);
    if norm.is_nan() || (z.re.is_infinite() && z.im.is_infinite()) {
        C::new(T::nan(), T::nan())
    } else if z.re.is_infinite() {
        C::new(unit(z.re), zero)
    } else if z.im.is_infinite() {
        C::new(zero, unit(z.im))
    } else if norm == zero {
        C::new(zero, zero)
    } else {
        C::new(z.re / norm, z.im / norm)
    }
}

/// `x / y` by Smith's method, as NumPy divides: no overflow in `|y|²`, and
/// dividing by zero gives infinities and NaNs part by part.
fn div<T: Float>(x: C<T>, y: C<T>) -> C<T> {
    let (yr, yi) = (y.re.abs(), y.im.abs());
    if yr >= yi {
        if yr == T::zero() {
            return C::new(x.re / yr, x.im / yr);
        }
        let rat = y.im / y.re;
        let scl = T::one() / (y.re + y.im * rat);
        C::new((x.re + x.im * rat) * scl, (x.im - x.re * rat) * scl)
    } else {
        let rat = y.re / y.im;
        let scl = T::one() / (y.im + y.re * rat);
        C::new((x.re * rat + x.im) * scl, (x.im * rat - x.re) * scl)
    }
}

/// `1 / z` as NumPy's `reciprocal` loop computes it.
fn reciprocal<T: Float>(z: C<T>) -> C<T> {
    if z.im.abs() <= z.re.abs() {
        let r = z.im / z.re;
        let d = z.re + z.im * r;
        C::new(T::one() / d, -r / d)
    } else {
        let r = z.re / z.im;
        let d = z.re * r + z.im;
        C::new(r / d, -T::one() / d)
    }
}

/// `exp(z) - 1` without cancellation for small `z` (NumPy's `nc_expm1`).
fn expm1<T: Float>(z: C<T>) -> C<T> {
    let two = T::one() + T::one();
    let a = (z.im / two).sin();
    C::new(
        z.re.exp_m1() * z.im.cos() - two * a * a,
        z.re.exp() * z.im.sin(),
    )
}

/// `x ** y` as NumPy's `npy_cpow` computes it: `x ** 0 == 1`, a zero base
/// gives 0 when `Re(y) > 0` (else NaN), small integer exponents go by
/// repeated multiplication (exact, where `exp(y ln x)` is not), and other
/// exponents by the general formula.
fn pow<T: Float>(x: C<T>, y: C<T>) -> C<T> {
    if y.is_zero() {
        return C::<T>::one();
    }
    if x.is_zero() {
        return if y.re > T::zero() {
            C::<T>::zero()
        } else {
            C::new(T::nan(), T::nan())
        };
    }
    let n = y.re.to_i64().unwrap_or(i64::MAX);
    if y.im == T::zero() && T::from(n) == Some(y.re) && n.abs() < 100 {
        let (mut acc, mut base, mut e) = (C::<T>::one(), x, n.unsigned_abs());
        while e > 0 {
            if e & 1 == 1 {
                acc = acc * base;
            }
            base = base * base;
            e >>= 1;
        }
        return if n < 0 { div(C::<T>::one(), acc) } else { acc };
    }
    (y * x.ln()).exp()
}

/// Runs `k` on complex inputs with parts of type `T` into `out`.
pub(crate) fn apply<T: Float + Element + Lane>(
    k: ScalarKind,
    ins: &[&Tensor],
    out: &mut Tensor,
) -> Result<()>
where
    C<T>: Element + ComplexFloat<Real = T>,
{
    use ScalarKind::*;
    let (a, b) = (ins[0], ins.get(1).copied());
    let two = || b.ok_or_else(|| Error::Type(format!("{} needs two inputs", k.name())));
    match k {
        Add => super::fold(ins, out, |x: C<T>, y: C<T>| x + y)?,
        Mul => super::fold(ins, out, |x: C<T>, y: C<T>| x * y)?,
        Sub => map2(a, two()?, out, |x: C<T>, y: C<T>| x - y),
        TrueDiv => map2(a, two()?, out, div::<T>),
        Pow => map2(a, two()?, out, pow::<T>),
        Maximum => map2(a, two()?, out, maximum::<T>),
        Minimum => map2(a, two()?, out, minimum::<T>),
        Lt => map2(a, two()?, out, lt::<T>),
        Gt => map2(a, two()?, out, |x: C<T>, y: C<T>| lt(y, x)),
        Le => map2(a, two()?, out, le::<T>),
        Ge => map2(a, two()?, out, |x: C<T>, y: C<T>| le(y, x)),
        Eq => map2(a, two()?, out, |x: C<T>, y: C<T>| x == y),
        Neq => map2(a, two()?, out, |x: C<T>, y: C<T>| x != y),
        Neg => map1(a, out, |x: C<T>| -x),
        Abs => map1_slices(
            a,
            out,
            Work::Heavy,
            complex_parts::abs_one::<T>,
            complex_parts::abs::<T>,
        ),
        Sign => map1(a, out, sign::<T>),
        Sqr => map1(a, out, |x: C<T>| x * x),
        Sqrt => map1(a, out, |x: C<T>| x.sqrt()),
        Exp => map1(a, out, |x: C<T>| x.exp()),
        Log => map1(a, out, |x: C<T>| x.ln()),
        Log1p => map1(a, out, |x: C<T>| (x + C::<T>::one()).ln()),
        Expm1 => map1(a, out, expm1::<T>),
        Sin => map1(a, out, |x: C<T>| x.sin()),
        Cos => map1(a, out, |x: C<T>| x.cos()),
        Tan => map1(a, out, |x: C<T>| x.tan()),
        Tanh => map1(a, out, |x: C<T>| x.tanh()),
        Reciprocal => map1(a, out, reciprocal::<T>),
        IsNan => map1(a, out, has_nan::<T>),
        IsInf => map1(a, out, |x: C<T>| x.re.is_infinite() || x.im.is_infinite()),
        Exp2 => map1(a, out, |x: C<T>| x.exp2()),
        Log2 => map1(a, out, |x: C<T>| x.log2()),
        Log10 => map1(a, out, |x: C<T>| x.log10()),
        ArcSin => map1(a, out, |x: C<T>| x.asin()),
        ArcCos => map1(a, out, |x: C<T>| x.acos()),
        ArcTan => map1(a, out, |x: C<T>| x.atan()),
        Sinh => map1(a, out, |x: C<T>| x.sinh()),
        Cosh => map1(a, out, |x: C<T>| x.cosh()),
        ArcSinh => map1(a, out, |x: C<T>| x.asinh()),
        ArcCosh => map1(a, out, |x: C<T>| x.acosh()),
        ArcTanh => map1(a, out, |x: C<T>| x.atanh()),
        Real => map1(a, out, |x: C<T>| x.re),
        Imag => map1(a, out, |x: C<T>| x.im),
        Conj => map1(a, out, |x: C<T>| x.conj()),
        // In double precision (complex64 rounded back), as SciPy's loop.
        Erf => map1(a, out, |x: C<T>| {
            let wide = |v: T| v.to_f64().unwrap_or(f64::NAN);
            let narrow = |v: f64| T::from(v).unwrap_or_else(T::nan);
            let r = super::special::erf_complex(C::new(wide(x.re), wide(x.im)));
            C::new(narrow(r.re), narrow(r.im))
        }),
        Angle => map1_slices(
            a,
            out,
            Work::Heavy,
            complex_parts::angle_one,
            complex_parts::angle,
        ),
        other => {
            return Err(Error::Type(format!(
                "{} is not defined for complex inputs",
                other.name()
            )))
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(re: f64, im: f64) -> C<f64> {
        C::new(re, im)
    }

    #[test]
    fn ordering_is_lexicographic() {
        // (x, y, x < y, x <= y), as NumPy compares them.
        let cases = [
            (c(1.0, 5.0), c(2.0, 0.0), true, true),
            (c(1.0, 1.0), c(1.0, 2.0), true, true),
            (c(1.0, 2.0), c(1.0, 2.0), false, true),
            (c(1.0, f64::NAN), c(2.0, 0.0), false, false),
        ];
        for (x, y, want_lt, want_le) in cases {
            assert_eq!((lt(x, y), le(x, y)), (want_lt, want_le), "{x} vs {y}");
        }
        assert_eq!(maximum(c(1.0, 1.0), c(1.0, 2.0)), c(1.0, 2.0));
        assert_eq!(minimum(c(1.0, 1.0), c(1.0, 2.0)), c(1.0, 1.0));
        assert!(maximum(c(2.0, 0.0), c(f64::NAN, 0.0)).re.is_nan());
    }

    #[test]
    fn division_is_smiths() {
        // (x, y, x / y) as NumPy divides.
        let inf = f64::INFINITY;
        let cases = [
            (c(1.0, 2.0), c(3.0, -4.0), c(-0.2, 0.4)),
            (c(1e300, 1e300), c(1e300, 1e300), c(1.0, 0.0)),
        ];
        for (x, y, want) in cases {
            assert!((div(x, y) - want).norm() < 1e-15, "{x} / {y}");
        }
        assert_eq!(div(c(1.0, -1.0), c(0.0, 0.0)), c(inf, -inf));
        let nan = div(c(0.0, 1.0), c(0.0, 0.0));
        assert!(nan.re.is_nan() && nan.im == inf);
        assert_eq!(reciprocal(c(0.0, 2.0)), c(0.0, -0.5));
        assert_eq!(reciprocal(c(4.0, 0.0)), c(0.25, -0.0));
    }

    #[test]
    fn sign_and_powers_match_numpy() {
        let cases = [
            (c(3.0, 4.0), c(0.6, 0.8)),
            (c(0.0, 0.0), c(0.0, 0.0)),
            (c(f64::INFINITY, 1.0), c(1.0, 0.0)),
            (c(2.0, f64::NEG_INFINITY), c(0.0, -1.0)),
        ];
        for (z, want) in cases {
            assert_eq!(sign(z), want, "sign({z})");
        }
        assert!(sign(c(f64::NAN, 0.0)).re.is_nan());
        assert_eq!(pow(c(1.0, 1.0), c(2.0, 0.0)), c(0.0, 2.0));
        assert_eq!(pow(c(0.0, 2.0), c(-1.0, 0.0)), c(0.0, -0.5));
        assert_eq!(pow(c(0.0, 0.0), c(2.5, 0.0)), c(0.0, 0.0));
        assert_eq!(pow(c(0.0, 0.0), c(0.0, 0.0)), c(1.0, 0.0));
        assert_eq!(pow(c(0.0, 0.0), c(1.0, -1.5)), c(0.0, 0.0));
        assert!(pow(c(0.0, 0.0), c(-1.0, 1.0)).re.is_nan());
        // Near zero, exp(z) - 1 = z + z²/2 + ...; the naive form loses it all.
        let z = c(1e-10, 1e-10);
        assert!((expm1(z) - (z + z * z / 2.0)).norm() < 1e-25);
    }
}
