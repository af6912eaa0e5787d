//! Vectorised elementwise math: the exp and log families, `pow`, the
//! logistic, trigonometric and hyperbolic functions, and the special
//! functions (`erf`, `erfc`, their inverses, `gamma`, `psi`, `log1mexp`)
//! on float64 and float32. Each is a branch-free
//! function of one element (special values by selects, so a loop of them
//! vectorises, and other kernels may call them inside their own loops),
//! and a slice loop built per instruction set ([`simd`]). float32 computes
//! in float32 arithmetic (`exp32.rs`, `log32.rs`, `trig32.rs`, `tan32.rs`,
//! `hyperbolic32.rs`, `tanh_f32.rs`, `arctan32.rs`, `arc_hyperbolic32.rs`:
//! sixteen lanes), but for `softplus`, `pow`, `arcsin` and `arccos`, in
//! float64 rounded once. `float_ops`
//! and `float_scalar` call here; the trigonometric and hyperbolic kinds
//! through [`kinds`], whose loops may redo elements out of a fast path's
//! range with libm ([`guarded`]).

mod arc_hyperbolic32;
mod arctan32;
pub(crate) mod complex_parts;
mod dd;
mod erf;
pub(crate) mod erfinv;
pub(crate) mod exp;
mod exp32;
mod gamma;
mod guarded;
mod hyperbolic;
mod hyperbolic32;
#[cfg(test)]
mod hyperbolic_tests;
mod inverse_trig;
mod inverse_trig32;
pub(crate) mod kinds;
pub(crate) mod log;
mod log1mexp;
mod log32;
mod log_pair32;
mod logistic;
mod narrow;
mod poly;
mod pow;
mod pow_small;
pub(crate) mod psi;
pub mod simd;
mod tan32;
mod tanh_f32;
#[cfg(test)]
pub(crate) mod test_support;
#[cfg(test)]
mod tests;
mod trig;
mod trig32;
#[cfg(test)]
mod trig_tests;

pub(crate) use exp::{exp, exp2, expm1};
pub(crate) use guarded::Lane;
pub(crate) use logistic::{sigmoid, softplus};

use crate::kernels::cpu::{level, Level};
use crate::kernels::elemwise::map::Part;
use crate::scalar::ScalarKind;
use simd::{unary_at, unary_kernels};

/// A function of one element computed here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Func {
    /// `e^x`.
    Exp,
    /// `2^x`.
    Exp2,
    /// `e^x - 1`.
    Expm1,
    /// The natural logarithm.
    Log,
    /// The base-2 logarithm.
    Log2,
    /// The base-10 logarithm.
    Log10,
    /// `log(1 + x)`.
    Log1p,
    /// `1 / (1 + e^-x)`.
    Sigmoid,
    /// `log(1 + e^x)`.
    Softplus,
}

// The float64 and float32 element functions as `Unary` kernels.
unary_kernels!(f64:
    ExpK => exp, Exp2K => exp2, Expm1K => expm1, SigmoidK => sigmoid, SoftplusK => softplus,
);
unary_kernels!(f32:
    Exp32 => exp32::exp, Exp2_32 => exp32::exp2, Expm1_32 => exp32::expm1,
    Log32 => log32::log, Log2_32 => log32::log2, Log10_32 => log32::log10,
    Log1p32 => log32::log1p, Sigmoid32 => exp32::sigmoid, Softplus32 => narrow::softplus,
);

/// float32 `pow` ([`narrow`]), small exponents left to [`pow_small`] as
/// float64's [`pow::Pow`] leaves them.
struct Pow32;
impl guarded::Guarded2 for Pow32 {
    #[inline(always)]
    fn fast<const F: bool>(x: f64, y: f64) -> f64 {
        f64::from(narrow::pow::<F>(x as f32, y as f32))
    }
    #[inline(always)]
    fn outside(_x: f64, y: f64) -> bool {
        pow_small::fits(y)
    }
    fn slow(x: f64, y: f64) -> f64 {
        pow_small::pow_small32_scalar(x, y)
    }
}

/// `zs[i] = xs[i] ** y` when `ys` is one exponent that [`pow_small`]
/// takes (or a slice of only that value), with the loop for its bit
/// length (`DD`: float64's double-double one); `false` otherwise (the general loops give such elements the
/// same values, one at a time).
fn pow_small_at<E: guarded::Lane, const DD: bool>(
    lvl: Level,
    zs: &mut [E],
    xs: Part<'_, E>,
    ys: Part<'_, E>,
) -> bool {
    use pow_small::PowSmall;
    let y = match ys {
        Part::One(y) => y.wide(),
        // The first differing value ends the scan.
        Part::Full(v) => match v.first() {
            Some(&y) if v.iter().all(|&w| w.wide() == y.wide()) => y.wide(),
            _ => return false,
        },
    };
    if !pow_small::fits(y) {
        return false;
    }
    let run = match pow_small::bit_length(y) {
        0 => guarded::binary_at::<PowSmall<0, DD>, E>,
        1 => guarded::binary_at::<PowSmall<1, DD>, E>,
        2 => guarded::binary_at::<PowSmall<2, DD>, E>,
        3 => guarded::binary_at::<PowSmall<3, DD>, E>,
        4 => guarded::binary_at::<PowSmall<4, DD>, E>,
        _ => guarded::binary_at::<PowSmall<5, DD>, E>,
    };
    run(lvl, zs, xs, Part::One(E::narrow(y)));
    true
}

/// `func` over a slice of `T`, at a build level.
pub trait Elem: Copy + Sized {
    /// `ys[i] = func(xs[i])` with the build at `lvl`.
    fn unary_at(lvl: Level, func: Func, ys: &mut [Self], xs: &[Self]);
    /// `zs[i] = xs[i] ** ys[i]` with the build at `lvl`.
    fn pow_at(lvl: Level, zs: &mut [Self], xs: Part<'_, Self>, ys: Part<'_, Self>);
}

/// Runs `func`'s kernel among the nine given in `Func`'s order.
macro_rules! by_func {
    ($func:expr, $run:ident($($arg:expr),*), [$e:ty, $e2:ty, $em1:ty, $l:ty, $l2:ty, $l10:ty, $l1p:ty, $sig:ty, $sp:ty]) => {
        match $func {
            Func::Exp => $run::<$e>($($arg),*),
            Func::Exp2 => $run::<$e2>($($arg),*),
            Func::Expm1 => $run::<$em1>($($arg),*),
            Func::Log => $run::<$l>($($arg),*),
            Func::Log2 => $run::<$l2>($($arg),*),
            Func::Log10 => $run::<$l10>($($arg),*),
            Func::Log1p => $run::<$l1p>($($arg),*),
            Func::Sigmoid => $run::<$sig>($($arg),*),
            Func::Softplus => $run::<$sp>($($arg),*),
        }
    };
}

impl Elem for f64 {
    fn unary_at(lvl: Level, func: Func, ys: &mut [f64], xs: &[f64]) {
        // The logarithms' loops leave their edge values to libm.
        match func {
            Func::Exp => unary_at::<ExpK>(lvl, ys, xs),
            Func::Exp2 => unary_at::<Exp2K>(lvl, ys, xs),
            Func::Expm1 => unary_at::<Expm1K>(lvl, ys, xs),
            Func::Log => guarded::unary_at::<log::Ln, f64>(lvl, ys, xs),
            Func::Log2 => guarded::unary_at::<log::Log2, f64>(lvl, ys, xs),
            Func::Log10 => guarded::unary_at::<log::Log10, f64>(lvl, ys, xs),
            Func::Log1p => guarded::unary_at::<log::Log1p, f64>(lvl, ys, xs),
            Func::Sigmoid => unary_at::<SigmoidK>(lvl, ys, xs),
            Func::Softplus => unary_at::<SoftplusK>(lvl, ys, xs),
        }
    }

    fn pow_at(lvl: Level, zs: &mut [f64], xs: Part<'_, f64>, ys: Part<'_, f64>) {
        if !pow_small_at::<f64, true>(lvl, zs, xs, ys) {
            guarded::binary_at::<pow::Pow, f64>(lvl, zs, xs, ys);
        }
    }
}

impl Elem for f32 {
    fn unary_at(lvl: Level, func: Func, ys: &mut [f32], xs: &[f32]) {
        by_func!(
            func,
            unary_at(lvl, ys, xs),
            [Exp32, Exp2_32, Expm1_32, Log32, Log2_32, Log10_32, Log1p32, Sigmoid32, Softplus32]
        );
    }

    fn pow_at(lvl: Level, zs: &mut [f32], xs: Part<'_, f32>, ys: Part<'_, f32>) {
        if !pow_small_at::<f32, false>(lvl, zs, xs, ys) {
            guarded::binary_at::<Pow32, f32>(lvl, zs, xs, ys);
        }
    }
}

/// `ys[i] = func(xs[i])` with the best build.
pub fn unary<T: Elem>(func: Func, ys: &mut [T], xs: &[T]) {
    T::unary_at(level(), func, ys, xs);
}

/// `func(x)` for one element, through the same loop as [`unary`] (so the
/// strided and small paths give the same bits as the contiguous one).
pub fn unary_one<T: Elem>(func: Func, x: T) -> T {
    let mut y = [x];
    T::unary_at(level(), func, &mut y, &[x]);
    y[0]
}

/// `zs[i] = xs[i] ** ys[i]` with the best build.
pub fn pow_slices<T: Elem>(zs: &mut [T], xs: Part<'_, T>, ys: Part<'_, T>) {
    T::pow_at(level(), zs, xs, ys);
}

/// The contiguous float64 and float32 loops of `k`, when it is a unary
/// trigonometric or hyperbolic kind computed here (at the process's build;
/// `OXTENSOR_SIMD` caps it): for `examples/vmath_speed.rs`.
pub fn kind_slices(k: ScalarKind) -> Option<(Slices<f64>, Slices<f32>)> {
    kinds::unary_loops(k).map(|l| (l.slice64, l.slice32))
}

/// A contiguous loop `ys[i] = f(xs[i])`.
pub type Slices<T> = fn(&mut [T], &[T]);

/// `x ** y` for one pair, through the same loop as [`pow_slices`].
pub fn pow_one<T: Elem>(x: T, y: T) -> T {
    let mut z = [x];
    // Slices, not `Part::One`: the guarded loop repeats a single operand
    // into a block-sized buffer.
    T::pow_at(level(), &mut z, Part::Full(&[x]), Part::Full(&[y]));
    z[0]
}
