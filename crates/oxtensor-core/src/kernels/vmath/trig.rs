//! `tan` as a branch-free element function: `x = k π/2 + r` by Cody–Waite
//! with exact products (|x| up to 2^20; libm past that), `tan(r/2)` by a
//! minimax polynomial, and `tan r` or `-cot r` from it by the double-angle
//! formula. Within 2 ulp of the correctly rounded result (tests).

use super::dd::two_sum;
use super::guarded::Guarded;
use super::poly::estrin;
use crate::kernels::fast_exp::fma;

use crate::kernels::fast_exp::SHIFTER;
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

/// `x - k π/2` as `hi + lo`, for 0 <= x <= REDUCE_MAX, and whether k is
/// odd. Plain products (no FMA), so every build reduces alike.
#[inline(always)]
fn reduce(x: f64) -> (f64, f64, bool) {
    let t = x * std::f64::consts::FRAC_2_PI + SHIFTER;
    let k = t - SHIFTER;
    let b = (x - k * C1) - k * C2;
    let (hi, e) = two_sum(b, -(k * T3));
    (hi, e - k * T4, t.to_bits() & 1 == 1)
}

/// `tan x` for |x| <= REDUCE_MAX.
#[inline(always)]
fn tan_fast<const F: bool>(x: f64) -> f64 {
    let ax = x.abs();
    let (hi, lo, odd) = reduce(ax);
    let (h, l) = (0.5 * hi, 0.5 * lo);
    let u = h * h;
    let t = h + fma::<F>(h * u, estrin::<F, 9>(u, &P), l);
    // tan 2h = 2t + 2t^3 / (1 - t^2); -cot 2h = t/2 - 1/(2t): one division.
    let (base, num, den) = if odd {
        (0.5 * t, -0.5, t)
    } else {
        (2.0 * t, (2.0 * t) * (t * t), fma::<F>(-t, t, 1.0))
    };
    let r = base + num / den;
    let r = if ax < TINY { ax } else { r };
    f64::from_bits(r.to_bits() ^ (x.to_bits() & SIGN))
}

/// `np.tan`.
pub(crate) struct Tan;

impl Guarded for Tan {
    #[inline(always)]
    fn fast<const F: bool>(x: f64) -> f64 {
        tan_fast::<F>(x)
    }
    #[inline(always)]
    fn outside(x: f64) -> bool {
        x.is_nan() || x.abs() > REDUCE_MAX
    }
    fn slow(x: f64) -> f64 {
        x.tan()
    }
}
