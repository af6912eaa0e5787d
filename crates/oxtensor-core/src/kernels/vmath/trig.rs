//! `sin`, `cos` and `tan` as branch-free element functions: `x = k π/2 + r`
//! by Cody–Waite with exact products (|x| up to 2^20; libm past that). Then
//! `sin r` and `cos r` by minimax polynomials, chosen and signed by `k mod
//! 4`; `tan(r/2)` by a minimax polynomial, and `tan r` or `-cot r` from it
//! by the double-angle formula. Within 1 ulp (sin, cos) and 2 ulp (tan) of
//! the correctly rounded result (tests).

use super::dd::two_sum;
use super::exp::fma;
use super::guarded::{guarded_kind, Guarded};
use super::poly::estrin;

use super::exp::SHIFTER;
/// π/2 = C1 + C2 + T3 + T4 (+ 1.5e-43). C1 has 27 significant bits and C2
/// ends at 2^-53, so for k < 2^20 `k C1`, `k C2` and `k T3` (33 bits) are
/// exact, and `x - k C1 - k C2` is too (a multiple of 2^-53 below 1).
const C1: f64 = f64::from_bits(0x3ff9_21fb_5400_0000);
const C2: f64 = f64::from_bits(0x3e11_0b46_2000_0000);
const T3: f64 = f64::from_bits(0xbc8c_b3b3_99d0_0000);
const T4: f64 = f64::from_bits(0xba6d_1fc8_f8cb_b5bf);
/// |x| up to here keeps k below 2^20; beyond, libm's reduction is used.
const REDUCE_MAX: f64 = 1_048_576.0;
/// Below this `tan x` rounds to `x` (x^3/3 < ulp(x)/4); the halving of a
/// subnormal would not be exact.
const TINY: f64 = 3.725_290_298_461_914e-9; // 2^-28
/// `tan h = h + h^3 P(h^2)` for |h| <= π/8 (1 + 2^-20): a minimax fit of
/// relative error 2^-58.7 (Remez exchange in 60-digit arithmetic).
const P: [f64; 9] = [
    0.333_333_333_333_335_04,
    0.133_333_333_332_891_77,
    0.053_968_254_007_658_18,
    0.021_869_486_815_099_523,
    0.008_863_277_952_800_501,
    0.003_591_498_761_174_43,
    0.001_461_549_576_928_289_8,
    0.000_559_125_325_409_545,
    0.000_328_723_310_722_770_1,
];
const SIGN: u64 = 1 << 63;
/// `sin r = r + r^3 S(r^2)` for |r| <= π/4 (1 + 2^-20): a Chebyshev fit
/// (mpmath `chebyfit`) of error 2^-66 in `S`.
const S: [f64; 7] = [
    -0.166_666_666_666_666_66,
    0.008_333_333_333_333_331,
    -0.000_198_412_698_412_650_65,
    2.755_731_921_933_913e-6,
    -2.505_210_623_243_528e-8,
    1.605_853_161_703_715_2e-10,
    -7.586_697_002_817_504e-13,
];
/// `cos r = 1 - r^2/2 + r^4 C(r^2)` on the same range: error 2^-59 in `C`.
const C: [f64; 6] = [
    0.041_666_666_666_666_664,
    -0.001_388_888_888_888_739_8,
    2.480_158_729_876_566_5e-5,
    -2.755_731_727_171_864_4e-7,
    2.087_614_626_607_931e-9,
    -1.138_263_225_809_361_5e-11,
];

/// `x - k π/2` as `hi + lo`, for 0 <= x <= REDUCE_MAX, and `k mod 4`.
/// Plain products (no FMA), so every build reduces alike.
#[inline(always)]
fn reduce(x: f64) -> (f64, f64, u64) {
    let t = x * std::f64::consts::FRAC_2_PI + SHIFTER;
    let k = t - SHIFTER;
    let b = (x - k * C1) - k * C2;
    let (hi, e) = two_sum(b, -(k * T3));
    (hi, e - k * T4, t.to_bits() & 3)
}

/// `tan x` for |x| <= REDUCE_MAX.
#[inline(always)]
fn tan_fast<const F: bool>(x: f64) -> f64 {
    let ax = x.abs();
    let (hi, lo, q) = reduce(ax);
    let (h, l) = (0.5 * hi, 0.5 * lo);
    let u = h * h;
    let t = h + fma::<F>(h * u, estrin::<F, 9>(u, &P), l);
    // tan 2h = 2t + 2t^3 / (1 - t^2); -cot 2h = t/2 - 1/(2t): one division.
    let (base, num, den) = if q & 1 == 1 {
        (0.5 * t, -0.5, t)
    } else {
        (2.0 * t, (2.0 * t) * (t * t), fma::<F>(-t, t, 1.0))
    };
    let r = base + num / den;
    let r = if ax < TINY { ax } else { r };
    f64::from_bits(r.to_bits() ^ (x.to_bits() & SIGN))
}

guarded_kind! {
    /// `np.tan`.
    pub(crate) struct Tan;
    fast<F>(x) { tan_fast::<F>(x) }
    outside(x) { far(x) }
    slow(x) { x.tan() }
}

/// `(sin r, cos r)` for `r = hi + lo` as [`reduce`] gives it: the
/// leading `1 - r^2/2` of the cosine with its rounding error (exact, as
/// `1 - w` is), `lo` entering as the first term of its Taylor series.
#[inline(always)]
fn sin_cos<const F: bool>(hi: f64, lo: f64) -> (f64, f64) {
    let z = hi * hi;
    let sin = hi + fma::<F>(hi * z, estrin::<F, 7>(z, &S), lo);
    let h = 0.5 * z;
    let w = 1.0 - h;
    let tail = fma::<F>(z * z, estrin::<F, 6>(z, &C), -(hi * lo));
    (sin, w + (((1.0 - w) - h) + tail))
}

/// `sin x` (`COS` false) or `cos x` for |x| <= REDUCE_MAX.
#[inline(always)]
fn sin_or_cos<const F: bool, const COS: bool>(x: f64) -> f64 {
    let (hi, lo, q) = reduce(x.abs());
    let (s, c) = sin_cos::<F>(hi, lo);
    by_quadrant::<COS>(x, q, s, c)
}

/// `sin x` (`COS` false) or `cos x` from `s = sin r`, `c = cos r` for
/// `|x| = k π/2 + r`, `q = k mod 4`: `s` or `c` by the parity of `k`,
/// negated in the quadrants where the function is (shifted by one for the
/// cosine), and for the sine of a negative `x`.
#[inline(always)]
fn by_quadrant<const COS: bool>(x: f64, q: u64, s: f64, c: f64) -> f64 {
    let q = q + u64::from(COS);
    let v = if q & 1 == 1 { c } else { s };
    let flip = ((q & 2) << 62) ^ if COS { 0 } else { x.to_bits() & SIGN };
    f64::from_bits(v.to_bits() ^ flip)
}

/// `np.sin` and `np.cos`.
pub(crate) struct Sin;
pub(crate) struct Cos;

/// Outside the reduction's range, and NaN.
#[inline(always)]
fn far(x: f64) -> bool {
    x.abs() > REDUCE_MAX || x.is_nan()
}

/// The kind `$kind` as an impl of `$tr` (`Guarded`, or `GuardedIn` with
/// its `type T`) on elements `$x`: its `fast` path as given, the calling
/// module's `far` test, and libm's float64 `$method` for the `far` inputs
/// (and NaN).
macro_rules! far_kind {
    (
        $tr:ident, $x:ty, [$($assoc:tt)*], $kind:ident, $method:ident,
        fast<$f:ident>($xf:ident) $fast:block
    ) => {
        impl $tr for $kind {
            $($assoc)*
            #[inline(always)]
            fn fast<const $f: bool>($xf: $x) -> $x $fast
            #[inline(always)]
            fn outside(x: $x) -> bool {
                far(x)
            }
            fn slow(x: $x) -> $x {
                (f64::from(x)).$method() as $x
            }
        }
    };
}
pub(super) use far_kind;

/// The kinds `$sin` and `$cos` as [`far_kind!`]s over the calling module's
/// `sin_or_cos::<F, COS>` kernel.
macro_rules! sin_cos_kinds {
    ($tr:ident, $x:ty, [$($assoc:tt)*], $sin:ident, $cos:ident) => {
        $crate::kernels::vmath::trig::far_kind!(
            $tr, $x, [$($assoc)*], $sin, sin,
            fast<F>(x) { sin_or_cos::<F, false>(x) }
        );
        $crate::kernels::vmath::trig::far_kind!(
            $tr, $x, [$($assoc)*], $cos, cos,
            fast<F>(x) { sin_or_cos::<F, true>(x) }
        );
    };
}
pub(super) use sin_cos_kinds;

sin_cos_kinds!(Guarded, f64, [], Sin, Cos);
