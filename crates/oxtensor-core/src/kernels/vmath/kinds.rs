//! The trigonometric and hyperbolic kinds' loops, as the function pointers
//! that `float_ops` maps over tensors: a whole-slice loop for contiguous
//! runs and a one-element entry (the same loop) for strided, broadcast and
//! tiny inputs, so every path gives the same bits.

use super::arc_hyperbolic32::{ArcCosh32, ArcSinh32, ArcTanh32};
use super::arctan32::ArcTan32;
use super::erf::{Erf, Erfc};
use super::erfinv::{Erfcinv, Erfinv};
use super::gamma::Gamma;
use super::guarded::{self, Guarded2, GuardedIn, Widened};
use super::hyperbolic::{ArcCosh, ArcSinh, ArcTanh, Cosh, Sinh, Tanh};
use super::hyperbolic32::{Cosh32, Sinh32};
use super::inverse_trig::{ArcCos, ArcSin, ArcTan, ArcTan2};
use super::inverse_trig32::{ArcCos32, ArcSin32};
use super::log1mexp::{Log1mexp, Log1mexp32};
use super::psi::Psi;
use super::simd::{staged_at, unary_at, Staged, Unary};
use super::tan32::Tan32;
use super::tanh_f32::Tanh32;
use super::trig::{Cos, Sin, Tan};
use super::trig32::{Cos32, Sin32};
use crate::kernels::cpu::level;
use crate::kernels::elemwise::map::Part;
use crate::scalar::ScalarKind;
use std::marker::PhantomData;

/// A unary kind's loops for float64 and float32.
#[derive(Clone, Copy)]
pub(crate) struct UnaryLoops {
    pub(crate) one64: fn(f64) -> f64,
    pub(crate) slice64: fn(&mut [f64], &[f64]),
    pub(crate) one32: fn(f32) -> f32,
    pub(crate) slice32: fn(&mut [f32], &[f32]),
}

/// A binary kind's loops for float64 and float32.
#[derive(Clone, Copy)]
pub(crate) struct BinaryLoops {
    pub(crate) one64: fn(f64, f64) -> f64,
    pub(crate) slice64: fn(&mut [f64], Part<'_, f64>, Part<'_, f64>),
    pub(crate) one32: fn(f32, f32) -> f32,
    pub(crate) slice32: fn(&mut [f32], Part<'_, f32>, Part<'_, f32>),
}

/// A float64 kernel on float32: computed in float64 (exactly converted)
/// and rounded once.
pub(super) struct Wide<K>(PhantomData<K>);

impl<K: Unary<T = f64>> Unary for Wide<K> {
    type T = f32;
    #[inline(always)]
    fn eval<const F: bool>(x: f32) -> f32 {
        K::eval::<F>(f64::from(x)) as f32
    }
}

fn plain<K: Unary>(ys: &mut [K::T], xs: &[K::T]) {
    unary_at::<K>(level(), ys, xs);
}

fn plain_one<K: Unary>(x: K::T) -> K::T {
    let mut y = [x];
    plain::<K>(&mut y, &[x]);
    y[0]
}

fn staged<S: Staged>(ys: &mut [S::T], xs: &[S::T]) {
    staged_at::<S>(level(), ys, xs);
}

fn staged_one<S: Staged>(x: S::T) -> S::T {
    let mut y = [x];
    staged::<S>(&mut y, &[x]);
    y[0]
}

fn guarded_one<G: GuardedIn>(x: G::T) -> G::T {
    let mut y = [x];
    guarded::unary_in::<G>(&mut y, &[x]);
    y[0]
}

fn guarded2_one<K: Guarded2, E: guarded::Lane>(x: E, y: E) -> E {
    let mut z = [x];
    guarded::binary::<K, E>(&mut z, Part::Full(&[x]), Part::Full(&[y]));
    z[0]
}

/// Loops of an [`Unary`] float64 kernel (float32 computed in float64).
macro_rules! plain {
    ($k:ty) => {
        UnaryLoops {
            one64: plain_one::<$k>,
            slice64: plain::<$k>,
            one32: plain_one::<Wide<$k>>,
            slice32: plain::<Wide<$k>>,
        }
    };
}

/// Loops of a [`Guarded`](guarded::Guarded) kernel (float32 computed in
/// float64).
macro_rules! guarded {
    ($k:ty) => {
        UnaryLoops {
            one64: guarded_one::<Widened<$k, f64>>,
            slice64: guarded::unary::<$k, f64>,
            one32: guarded_one::<Widened<$k, f32>>,
            slice32: guarded::unary::<$k, f32>,
        }
    };
}

/// [`guarded!`] with its float32 loops from the float32 kernel `k32`.
macro_rules! guarded32 {
    ($k:ty, $k32:ty) => {
        UnaryLoops {
            one32: guarded_one::<$k32>,
            slice32: guarded::unary_in::<$k32>,
            ..guarded!($k)
        }
    };
}

/// [`plain!`] with its float32 loops from the float32 kernel `k32`.
macro_rules! plain32 {
    ($k:ty, $k32:ty) => {
        UnaryLoops {
            one32: plain_one::<$k32>,
            slice32: plain::<$k32>,
            ..plain!($k)
        }
    };
}

/// [`guarded!`] with its float32 loops from the plain float32 kernel `k32`.
macro_rules! guarded_plain32 {
    ($k:ty, $k32:ty) => {
        UnaryLoops {
            one32: plain_one::<$k32>,
            slice32: plain::<$k32>,
            ..guarded!($k)
        }
    };
}

/// [`guarded!`] with its float32 loops from the two-stage float32 kernel
/// `k32`.
macro_rules! guarded_staged32 {
    ($k:ty, $k32:ty) => {
        UnaryLoops {
            one32: staged_one::<$k32>,
            slice32: staged::<$k32>,
            ..guarded!($k)
        }
    };
}

/// `k`'s loops, when it is a unary kind computed here.
pub(crate) fn unary_loops(k: ScalarKind) -> Option<UnaryLoops> {
    use ScalarKind as K;
    Some(match k {
        // float32 sin, cos and tan in float32 (twice the lanes).
        K::Sin => guarded32!(Sin, Sin32),
        K::Cos => guarded32!(Cos, Cos32),
        K::Tan => guarded32!(Tan, Tan32),
        // float32 arcsin and arccos in float64 with a shorter polynomial.
        K::ArcSin => plain32!(ArcSin, ArcSin32),
        K::ArcCos => plain32!(ArcCos, ArcCos32),
        // float32 arctan in float32 (twice the lanes).
        K::ArcTan => plain32!(ArcTan, ArcTan32),
        K::Sinh => guarded32!(Sinh, Sinh32),
        K::Cosh => guarded32!(Cosh, Cosh32),
        // float32 tanh is computed in float32 (twice the lanes).
        K::Tanh => plain32!(Tanh, Tanh32),
        // float32 arc-hyperbolics in float32 pairs, in two stages.
        K::ArcSinh => guarded_staged32!(ArcSinh, ArcSinh32),
        K::ArcCosh => guarded_staged32!(ArcCosh, ArcCosh32),
        K::ArcTanh => guarded_staged32!(ArcTanh, ArcTanh32),
        K::Erf => plain!(Erf),
        K::Erfc => plain!(Erfc),
        K::Erfinv => guarded!(Erfinv),
        K::Erfcinv => guarded!(Erfcinv),
        K::Gamma => guarded!(Gamma),
        K::Psi => guarded!(Psi),
        // float32 log1mexp is computed in float32 (twice the lanes).
        K::Log1mexp => guarded_plain32!(Log1mexp, Log1mexp32),
        _ => return None,
    })
}

/// `k`'s loops, when it is a binary kind computed here.
pub(crate) fn binary_loops(k: ScalarKind) -> Option<BinaryLoops> {
    match k {
        ScalarKind::ArcTan2 => Some(BinaryLoops {
            one64: guarded2_one::<ArcTan2, f64>,
            slice64: guarded::binary::<ArcTan2, f64>,
            one32: guarded2_one::<ArcTan2, f32>,
            slice32: guarded::binary::<ArcTan2, f32>,
        }),
        _ => None,
    }
}
