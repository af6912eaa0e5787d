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

/// How a kernel's whole-slice loop runs (at the process's level), and so
/// its one-element entry: the same loop on one element, for the same bits.
trait Runner {
    type T: Copy;
    fn slice(ys: &mut [Self::T], xs: &[Self::T]);
}

/// An [`Unary`] kernel's loop.
struct Plain<K>(PhantomData<K>);

impl<K: Unary> Runner for Plain<K> {
    type T = K::T;
    fn slice(ys: &mut [K::T], xs: &[K::T]) {
        unary_at::<K>(level(), ys, xs);
    }
}

/// A [`Staged`] kernel's loop.
struct InStages<S>(PhantomData<S>);

impl<S: Staged> Runner for InStages<S> {
    type T = S::T;
    fn slice(ys: &mut [S::T], xs: &[S::T]) {
        staged_at::<S>(level(), ys, xs);
    }
}

/// A [`GuardedIn`] kernel's loop.
struct Guard<G>(PhantomData<G>);

impl<G: GuardedIn> Runner for Guard<G> {
    type T = G::T;
    fn slice(ys: &mut [G::T], xs: &[G::T]) {
        guarded::unary_in::<G>(ys, xs);
    }
}

fn one<R: Runner>(x: R::T) -> R::T {
    let mut y = [x];
    R::slice(&mut y, &[x]);
    y[0]
}

fn guarded2_one<K: Guarded2, E: guarded::Lane>(x: E, y: E) -> E {
    let mut z = [x];
    guarded::binary::<K, E>(&mut z, Part::Full(&[x]), Part::Full(&[y]));
    z[0]
}

/// A kernel's one-element entry and whole-slice loop.
type Pair<T> = (fn(T) -> T, fn(&mut [T], &[T]));

/// `R`'s one-element entry and whole-slice loop.
fn pair<R: Runner>() -> Pair<R::T> {
    (one::<R>, R::slice)
}

impl UnaryLoops {
    fn new((one64, slice64): Pair<f64>, (one32, slice32): Pair<f32>) -> UnaryLoops {
        UnaryLoops {
            one64,
            slice64,
            one32,
            slice32,
        }
    }

    /// Loops of an [`Unary`] float64 kernel (float32 computed in float64).
    fn plain<K: Unary<T = f64>>() -> UnaryLoops {
        UnaryLoops::new(pair::<Plain<K>>(), pair::<Plain<Wide<K>>>())
    }

    /// Loops of a [`Guarded`](guarded::Guarded) kernel (float32 computed in
    /// float64).
    fn guarded<K: guarded::Guarded>() -> UnaryLoops {
        UnaryLoops::new(
            pair::<Guard<Widened<K, f64>>>(),
            pair::<Guard<Widened<K, f32>>>(),
        )
    }

    /// These loops with the float32 ones from a float32 kernel's `pair`.
    fn with32(self, (one32, slice32): Pair<f32>) -> UnaryLoops {
        UnaryLoops {
            one32,
            slice32,
            ..self
        }
    }
}

/// `k`'s loops, when it is a unary kind computed here.
pub(crate) fn unary_loops(k: ScalarKind) -> Option<UnaryLoops> {
    use ScalarKind as K;
    use UnaryLoops as L;
    Some(match k {
        // float32 sin, cos and tan in float32 (twice the lanes).
        K::Sin => L::guarded::<Sin>().with32(pair::<Guard<Sin32>>()),
        K::Cos => L::guarded::<Cos>().with32(pair::<Guard<Cos32>>()),
        K::Tan => L::guarded::<Tan>().with32(pair::<Guard<Tan32>>()),
        // float32 arcsin and arccos in float64 with a shorter polynomial.
        K::ArcSin => L::plain::<ArcSin>().with32(pair::<Plain<ArcSin32>>()),
        K::ArcCos => L::plain::<ArcCos>().with32(pair::<Plain<ArcCos32>>()),
        // float32 arctan in float32 (twice the lanes).
        K::ArcTan => L::plain::<ArcTan>().with32(pair::<Plain<ArcTan32>>()),
        K::Sinh => L::guarded::<Sinh>().with32(pair::<Guard<Sinh32>>()),
        K::Cosh => L::guarded::<Cosh>().with32(pair::<Guard<Cosh32>>()),
        // float32 tanh is computed in float32 (twice the lanes).
        K::Tanh => L::plain::<Tanh>().with32(pair::<Plain<Tanh32>>()),
        // float32 arc-hyperbolics in float32 pairs, in two stages.
        K::ArcSinh => L::guarded::<ArcSinh>().with32(pair::<InStages<ArcSinh32>>()),
        K::ArcCosh => L::guarded::<ArcCosh>().with32(pair::<InStages<ArcCosh32>>()),
        K::ArcTanh => L::guarded::<ArcTanh>().with32(pair::<InStages<ArcTanh32>>()),
        K::Erf => L::plain::<Erf>(),
        K::Erfc => L::plain::<Erfc>(),
        K::Erfinv => L::guarded::<Erfinv>(),
        K::Erfcinv => L::guarded::<Erfcinv>(),
        K::Gamma => L::guarded::<Gamma>(),
        K::Psi => L::guarded::<Psi>(),
        // float32 log1mexp is computed in float32 (twice the lanes).
        K::Log1mexp => L::guarded::<Log1mexp>().with32(pair::<Plain<Log1mexp32>>()),
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
