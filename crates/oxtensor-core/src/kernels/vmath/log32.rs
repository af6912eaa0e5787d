//! `log`, `log2`, `log10` and `log1p` of one `f32` in float32 arithmetic: sixteen
//! lanes a vector on AVX-512 where the float64 route (`narrow.rs`) has
//! eight, which NumPy's float32 loops run at (measured: the float64 route
//! took 2-3x NumPy's time). Within 2 ulp; exact at powers of two for
//! `log2`, and at 1.

// `fma32`: `a * b + c`, fused when compiled with FMA (as `exp::fma`).
super::exp::fused_multiply_add!(pub(super) fn fma32(f32));

/// `(log1p(f) - f) / f^2` on [sqrt(1/2) - 1, sqrt(2) - 1]: a Chebyshev fit
/// (mpmath `chebyfit`) with float32 coefficients, within 2^-26 of
/// `log1p(f)` relative.
const P: [f32; 9] = [
    -0.499_999_97,
    0.333_333_3,
    -0.250_007_8,
    0.200_012_36,
    -0.166_266_26,
    0.142_048_21,
    -0.131_277_31,
    0.127_230_36,
    -0.076_736_1,
];
/// ln 2 in two parts, `e * LN2_HI` exact for the exponents of float32.
pub(super) const LN2_HI: f32 = 0.693_359_4;
pub(super) const LN2_LO: f32 = -2.121_944_4e-4;
/// log10(2) in two parts, likewise.
const LG2_HI: f32 = 0.301_025_4;
const LG2_LO: f32 = 4.605_038e-6;

/// `x = 2^e (1 + f)`, `1 + f` in [sqrt(1/2), sqrt(2)), for positive finite
/// `x` (subnormals scaled by 2^23 first); `f` is exact.
#[inline(always)]
pub(super) fn decompose(x: f32) -> (f32, f32) {
    let sub = x < f32::MIN_POSITIVE;
    let (e, f) = decompose_normal(if sub { x * 8_388_608.0 } else { x });
    (if sub { e - 23.0 } else { e }, f)
}

/// [`decompose`] for positive normal finite `x`.
#[inline(always)]
pub(super) fn decompose_normal(x: f32) -> (f32, f32) {
    let bits = x.to_bits();
    // The biased exponent of x / sqrt(1/2) (0x3f35_04f3 is sqrt(1/2)).
    let eb = bits.wrapping_add(0x3f80_0000 - 0x3f35_04f3) >> 23;
    let m = f32::from_bits(bits.wrapping_sub((eb << 23).wrapping_sub(0x3f80_0000)));
    ((eb as i32 - 127) as f32, m - 1.0)
}

/// `P[i] + P[i + 1] f` (a function, not a closure: always inlined).
#[inline(always)]
fn pair<const F: bool>(f: f32, i: usize) -> f32 {
    fma32::<F>(P[i + 1], f, P[i])
}

/// `log1p(f)` for `1 + f` in [sqrt(1/2), sqrt(2)): `f + f^2 P(f)`, `P` in
/// Estrin's scheme, `f` added in the last FMA.
#[inline(always)]
pub(super) fn log1p_m<const F: bool>(f: f32) -> f32 {
    let f2 = f * f;
    let f4 = f2 * f2;
    let a = fma32::<F>(pair::<F>(f, 2), f2, pair::<F>(f, 0));
    let b = fma32::<F>(pair::<F>(f, 6), f2, pair::<F>(f, 4));
    let p = fma32::<F>(fma32::<F>(P[8], f4, b), f4, a);
    fma32::<F>(f2, p, f)
}

/// -inf at ±0, NaN below 0, `x` at +inf and NaN; `y` inside.
#[inline(always)]
fn edges(x: f32, y: f32) -> f32 {
    let edge = if x == 0.0 {
        f32::NEG_INFINITY
    } else if x < 0.0 {
        f32::NAN
    } else {
        x
    };
    if x > 0.0 && x < f32::INFINITY {
        y
    } else {
        edge
    }
}

#[inline(always)]
pub(super) fn log<const F: bool>(x: f32) -> f32 {
    let (e, f) = decompose(x);
    let y = fma32::<F>(e, LN2_LO, log1p_m::<F>(f));
    edges(x, fma32::<F>(e, LN2_HI, y))
}

#[inline(always)]
pub(super) fn log2<const F: bool>(x: f32) -> f32 {
    let (e, f) = decompose(x);
    let y = log1p_m::<F>(f);
    edges(x, fma32::<F>(y, std::f32::consts::LOG2_E, e))
}

#[inline(always)]
pub(super) fn log10<const F: bool>(x: f32) -> f32 {
    let (e, f) = decompose(x);
    let y = fma32::<F>(e, LG2_LO, log1p_m::<F>(f) * std::f32::consts::LOG10_E);
    edges(x, fma32::<F>(e, LG2_HI, y))
}

/// `log(1 + x)`: `1 + x = u + c` exactly, `u = 2^e (1 + f)`, then
/// `log1p(f) + c 2^-e / (1 + f)` (the correction to 3%, all it needs).
#[inline(always)]
pub(super) fn log1p<const F: bool>(x: f32) -> f32 {
    let u = 1.0 + x;
    let v = u - 1.0;
    let c = (1.0 - (u - v)) + (x - v);
    let (e, f) = decompose(u);
    // 2^-e from its exponent bits (1.5 * 2^23 + n holds n in its low
    // bits); past e = 24 the correction is below an ulp of the result (and
    // 2^-e may not be normal).
    let inv = f32::from_bits((12_582_912.0 + (127.0 - e)).to_bits() << 23);
    let f_lo = if e > 24.0 { 0.0 } else { c * inv };
    let corr = f_lo * fma32::<F>(-f, fma32::<F>(-f, 1.0 - f, 1.0), 1.0);
    let y = fma32::<F>(e, LN2_LO, log1p_m::<F>(f) + corr);
    let r = edges(u, fma32::<F>(e, LN2_HI, y));
    if x.abs() < 1.0 / 33_554_432.0 {
        x
    } else {
        r
    }
}
