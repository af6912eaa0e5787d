//! `arcsin`, `arccos`, `arctan` and `arctan2` as branch-free element
//! functions. arcsin/arccos: one minimax polynomial on [0, 0.5], reached
//! through `asin x = π/2 - 2 asin(sqrt((1 - x)/2))` above 0.5. arctan:
//! `atan(a/b) = jπ/8 + atan(w)`, `w = (a - b tan(jπ/8)) / (b + a tan(jπ/8))`
//! with |w| <= tan(π/16), which takes the ratio without dividing first
//! (arctan2 needs no `y/x`). Within 2 ulp of the correctly rounded result.

use super::exp::fma;
use super::guarded::Guarded2;
use super::poly::estrin;
use super::simd::unary_kernels;

const PIO2_HI: f64 = f64::from_bits(0x3ff9_21fb_5444_2d18);
const PIO2_LO: f64 = f64::from_bits(0x3c91_a626_3314_5c07);
const PI_HI: f64 = f64::from_bits(0x4009_21fb_5444_2d18);
const PI_LO: f64 = f64::from_bits(0x3ca1_a626_3314_5c07);
/// `asin s = s + s^3 P(s^2)` for s in [0, 0.5]: minimax, relative error
/// 2^-59.9 (Remez exchange in 60-digit arithmetic).
const ASIN: [f64; 13] = [
    0.166_666_666_666_667_6,
    0.074_999_999_999_707_98,
    0.044_642_857_174_613_63,
    0.030_381_942_707_714_837,
    0.022_372_214_989_218_28,
    0.017_351_611_990_884_017,
    0.013_980_820_767_905_995,
    0.011_398_910_736_106_556,
    0.010_780_259_941_568_21,
    0.003_706_384_653_910_763,
    0.021_707_500_878_520_827,
    -0.020_999_133_847_679_458,
    0.032_628_666_191_679_72,
];
/// `atan w = w + w^3 P(w^2)` for |w| <= tan(π/16) (1 + 2^-20): minimax,
/// relative error 2^-63.3.
const ATAN: [f64; 8] = [
    -0.333_333_333_333_333_1,
    0.199_999_999_999_815_13,
    -0.142_857_142_805_188_82,
    0.111_111_104_043_039_88,
    -0.090_908_558_023_906_72,
    0.076_899_593_006_317_63,
    -0.066_062_595_124_678_45,
    0.050_338_509_349_724_58,
];
/// tan((2j + 1)π/16): the ratio bounds of the pieces j = 0..=4.
const SPLIT: [f64; 4] = [
    0.198_912_367_379_658,
    0.668_178_637_919_298_9,
    1.496_605_762_665_489,
    5.027_339_492_125_848,
];
/// tan(jπ/8) for j = 1..=3 (j = 4 is π/2, done as `-b/a`).
const TAN_J: [f64; 3] = [0.414_213_562_373_095_03, 1.0, 2.414_213_562_373_095];
/// jπ/8 for j = 1..=4 as high and low parts.
const J_HI: [f64; 4] = [
    f64::from_bits(0x3fd9_21fb_5444_2d18),
    f64::from_bits(0x3fe9_21fb_5444_2d18),
    f64::from_bits(0x3ff2_d97c_7f33_21d2),
    PIO2_HI,
];
const J_LO: [f64; 4] = [
    f64::from_bits(0x3c71_a626_3314_5c07),
    f64::from_bits(0x3c81_a626_3314_5c07),
    f64::from_bits(0x3c8a_7939_4c9e_8a0a),
    PIO2_LO,
];
/// π - jπ/8 for j = 1..=3 as high and low parts (arctan2 with x < 0).
const R_HI: [f64; 3] = [
    f64::from_bits(0x4005_fdbb_e9bb_a775),
    f64::from_bits(0x4002_d97c_7f33_21d2),
    f64::from_bits(0x3fff_6a7a_2955_385e),
];
const R_LO: [f64; 3] = [
    f64::from_bits(0x3c9e_e2c2_d963_a10c),
    f64::from_bits(0x3c9a_7939_4c9e_8a0a),
    f64::from_bits(0x3c96_0faf_bfd9_7309),
];
/// Outside [2^-1000, 2^1000] the sum |y| + |x| (or NaN, ±inf) goes to
/// libm: the products `b tan(jπ/8)` neither overflow nor lose bits inside.
const RATIO_MIN: f64 = 9.332_636_185_032_189e-302;
const RATIO_MAX: f64 = 1.071_508_607_186_267_3e301;

/// `asin s` for the reduced `s` as `s + q`, `s` and `z = s^2` from
/// `ax = |x|` (NaN for ax > 1), and whether ax <= 0.5 (else asin |x| =
/// π/2 - 2 asin s).
#[inline(always)]
fn asin_parts<const F: bool>(ax: f64) -> (f64, f64, bool) {
    let small = ax <= 0.5;
    // 1 - ax is exact for ax in [0.5, 1].
    let z = if small { ax * ax } else { 0.5 * (1.0 - ax) };
    let s = if small { ax } else { z.sqrt() };
    (s, s * z * estrin::<F, 13>(z, &ASIN), small)
}

/// `atan(a / b)` in [0, π/2] for `a, b >= 0`, not both 0, with `a + b`
/// in [RATIO_MIN, RATIO_MAX] or `b == 1`; `π - atan(a / b)` if `reflect`
/// (from tables of π - jπ/8, so the angle near π is not rounded twice).
#[inline(always)]
fn atan_ratio<const F: bool>(a: f64, b: f64, reflect: bool) -> f64 {
    let (mut t, mut hi, mut lo, mut rhi, mut rlo) = (0.0, 0.0, 0.0, PI_HI, PI_LO);
    for j in 0..3 {
        if a > b * SPLIT[j] {
            (t, hi, lo, rhi, rlo) = (TAN_J[j], J_HI[j], J_LO[j], R_HI[j], R_LO[j]);
        }
    }
    let far = a > b * SPLIT[3];
    let num = if far { -b } else { fma::<F>(-t, b, a) };
    let den = if far { a } else { fma::<F>(t, a, b) };
    let (hi, lo) = if reflect { (rhi, rlo) } else { (hi, lo) };
    let (hi, lo) = if far { (PIO2_HI, PIO2_LO) } else { (hi, lo) };
    let w = num / den;
    let w = if reflect { -w } else { w };
    let u = w * w;
    hi + (w + fma::<F>(w * u, estrin::<F, 8>(u, &ATAN), lo))
}

unary_kernels!(f64:
    /// `np.arcsin`.
    pub(crate) ArcSin => arcsin,
);

/// [`ArcSin`]'s element function.
#[inline(always)]
fn arcsin<const F: bool>(x: f64) -> f64 {
    let (s, q, small) = asin_parts::<F>(x.abs());
    let r = if small {
        s + q
    } else {
        (PIO2_HI - 2.0 * s) + (PIO2_LO - 2.0 * q)
    };
    r.copysign(x)
}

unary_kernels!(f64:
    /// `np.arccos`.
    pub(crate) ArcCos => arccos,
);

/// [`ArcCos`]'s element function.
#[inline(always)]
fn arccos<const F: bool>(x: f64) -> f64 {
    let (s, q, small) = asin_parts::<F>(x.abs());
    if small {
        // π/2 - asin x
        PIO2_HI - (x + (q.copysign(x) - PIO2_LO))
    } else if x > 0.0 {
        2.0 * s + 2.0 * q
    } else {
        // π - 2 asin s (NaN here for NaN or |x| > 1).
        (PI_HI - 2.0 * s) + (PI_LO - 2.0 * q)
    }
}

unary_kernels!(f64:
    /// `np.arctan`.
    pub(crate) ArcTan => arctan,
);

/// [`ArcTan`]'s element function.
#[inline(always)]
fn arctan<const F: bool>(x: f64) -> f64 {
    atan_ratio::<F>(x.abs(), 1.0, false).copysign(x)
}

/// `np.arctan2(y, x)`.
pub(crate) struct ArcTan2;

impl Guarded2 for ArcTan2 {
    #[inline(always)]
    fn fast<const F: bool>(y: f64, x: f64) -> f64 {
        // x < 0 or x = -0: the angle is measured from the negative axis.
        atan_ratio::<F>(y.abs(), x.abs(), x.is_sign_negative()).copysign(y)
    }
    #[inline(always)]
    fn outside(y: f64, x: f64) -> bool {
        let s = y.abs() + x.abs();
        // NaN sums are outside too.
        !(RATIO_MIN..=RATIO_MAX).contains(&s)
    }
    fn slow(y: f64, x: f64) -> f64 {
        y.atan2(x)
    }
}
