//! The kinds with vectorised loops here, as the function pointers that
//! `float_ops` maps over tensors: a whole-slice loop for contiguous runs and
//! a one-element entry (the same loop) for strided, broadcast and tiny
//! inputs, so every path gives the same bits.

use super::inverse_trig::{ArcCos, ArcSin, ArcTan, ArcTan2};
use super::tanh_f32::Tanh32;
use super::trig::Tan;
use super::variants::{binary, binary_one, unary, unary32, unary32_one, unary_one};
use crate::ops::scalar::ScalarKind;

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
    pub(crate) slice64: fn(&mut [f64], &[f64], &[f64]),
    pub(crate) one32: fn(f32, f32) -> f32,
    pub(crate) slice32: fn(&mut [f32], &[f32], &[f32]),
}

macro_rules! unary_loops {
    ($k:ty) => {
        UnaryLoops {
            one64: unary_one::<$k, f64>,
            slice64: unary::<$k, f64>,
            one32: unary_one::<$k, f32>,
            slice32: unary::<$k, f32>,
        }
    };
}

/// `k`'s loops, when it is a unary kind computed here.
pub(crate) fn unary_loops(k: ScalarKind) -> Option<UnaryLoops> {
    use ScalarKind as K;
    Some(match k {
        K::Tan => unary_loops!(Tan),
        K::ArcSin => unary_loops!(ArcSin),
        K::ArcCos => unary_loops!(ArcCos),
        K::ArcTan => unary_loops!(ArcTan),
        _ => return None,
    })
}

/// `k`'s loops, when it is a binary kind computed here.
pub(crate) fn binary_loops(k: ScalarKind) -> Option<BinaryLoops> {
    match k {
        ScalarKind::ArcTan2 => Some(BinaryLoops {
            one64: binary_one::<ArcTan2, f64>,
            slice64: binary::<ArcTan2, f64>,
            one32: binary_one::<ArcTan2, f32>,
            slice32: binary::<ArcTan2, f32>,
        }),
        _ => None,
    }
}

/// float32 `tanh`'s loops (computed in float32): the element entry and
/// the slice loop.
pub(crate) const TANH32: (fn(f32) -> f32, fn(&mut [f32], &[f32])) =
    (unary32_one::<Tanh32>, unary32::<Tanh32>);
