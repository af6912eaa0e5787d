//! `mean`, `var` and `std` as PyTensor builds them: the mean divides the
//! `Sum` by each reduced length (`Shape_i`), and `var` is the `Sum` of `Sqr`
//! of `x` minus the kept-dims mean, over the count. That exact chain is what
//! the specialize rewrite `local_sum_sqr_deviations`
//! (`rewrite/families/variance.rs`) recognises and runs in one pass.

use crate::build::{cast, dimshuffle, elemwise, int_constant, reinsert_axes, sqr, sub, true_div};
use crate::dtype::{upcast, DType};
use crate::error::Result;
use crate::graph::{Graph, VarId};
use crate::ops::reduce::{normalize_axes, CAReduce};
use crate::ops::shape::ShapeI;
use crate::reduction::ReduceKind;
use crate::scalar::ScalarKind;
use crate::types::TensorType;
use std::sync::Arc;

/// What `var` and `std` reduce and how they divide.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Moments {
    /// The reduced axes (negative counts from the end); `None`: all.
    pub axis: Option<Vec<i64>>,
    /// Delta degrees of freedom: the count is `n - ddof` (NumPy's).
    pub ddof: i64,
    /// Keep the reduced axes as length-1 axes.
    pub keepdims: bool,
    /// Subtract the two-pass algorithm's rounding term `(Σ (x - mean))² / n`.
    pub corrected: bool,
}

fn tensor_type(g: &Graph, v: VarId) -> Result<TensorType> {
    Ok(g.try_var(v)?.ty.expect_tensor("An input")?.clone())
}

/// The axes `axis` covers in a rank-`ndim` tensor, checked and sorted.
fn axes_for(axis: Option<&[i64]>, ndim: usize) -> Result<Vec<usize>> {
    match axis {
        None => Ok((0..ndim).collect()),
        Some(a) => normalize_axes(a, ndim),
    }
}

/// `x.sum(axis, keepdims=keepdims)`.
pub fn sum_keepdims(
    g: &mut Graph,
    x: VarId,
    axis: Option<&[i64]>,
    keepdims: bool,
) -> Result<VarId> {
    let ndim = tensor_type(g, x)?.ndim();
    let axes = axes_for(axis, ndim)?;
    let out = crate::build::sum(g, x, axis)?;
    if !keepdims {
        return Ok(out);
    }
    dimshuffle(g, out, reinsert_axes(ndim, &axes))
}

/// `x.mean(axis, keepdims=keepdims, dtype=dtype)`: the `Sum` (in `dtype`
/// when given) divided by each reduced length in turn, named `mean`.
pub fn mean(
    g: &mut Graph,
    x: VarId,
    axis: Option<&[i64]>,
    keepdims: bool,
    dtype: Option<DType>,
) -> Result<VarId> {
    let ty = tensor_type(g, x)?;
    let axes = axes_for(axis, ty.ndim())?;
    // float16 data are summed in float32 (10^5 ones overflow float16).
    let sum_dtype = dtype.or((ty.dtype == DType::Float16).then_some(DType::Float32));
    let mut s = match sum_dtype {
        None => crate::build::sum(g, x, axis)?,
        // The sum in `dtype`, accumulated at least as wide as by default.
        Some(d) => {
            let mut op = CAReduce::new(ReduceKind::Sum, axis, &ty)?;
            op.acc_dtype = upcast(&[op.acc_dtype, d])?;
            op.dtype = d;
            g.apply_out(Arc::new(op), &[x])?
        }
    };
    // The division runs in float32 for float16 data (an accumulator, as in
    // NumPy and PyTensor) and the mean is cast back.
    let float = match tensor_type(g, s)?.dtype {
        DType::Float16 | DType::Float32 | DType::Complex64 => DType::Float32,
        _ => DType::Float64,
    };
    for &a in &axes {
        let len = g.apply_out(Arc::new(ShapeI { i: a }), &[x])?;
        let len = cast(g, len, float)?;
        s = true_div(g, s, len)?;
    }
    // No axes: nothing divided, yet a mean is a float (PyTensor's rule).
    if axes.is_empty() && tensor_type(g, s)?.dtype.is_discrete() {
        s = cast(g, s, float)?;
    }
    if dtype == Some(DType::Float16) || (dtype.is_none() && ty.dtype == DType::Float16) {
        s = cast(g, s, DType::Float16)?;
    }
    let out = if keepdims {
        dimshuffle(g, s, reinsert_axes(ty.ndim(), &axes))?
    } else {
        s
    };
    if !axes.is_empty() {
        g.set_name(out, Some("mean"));
    }
    Ok(out)
}

/// The number of elements `axis` covers, as a `dtype` scalar: `1` times
/// each reduced length, all cast to `dtype`.
fn count(g: &mut Graph, x: VarId, axis: Option<&[i64]>, dtype: DType) -> Result<VarId> {
    let ndim = tensor_type(g, x)?.ndim();
    let axes: Vec<usize> = match axis {
        None => (0..ndim).collect(),
        // Out-of-range axes were refused by the mean built before.
        Some(a) => a
            .iter()
            .map(|&i| i.rem_euclid(ndim.max(1) as i64) as usize)
            .collect(),
    };
    let one = int_constant(g, 1)?;
    let mut n = cast(g, one, dtype)?;
    for a in axes {
        let len = g.apply_out(Arc::new(ShapeI { i: a }), &[x])?;
        let len = cast(g, len, dtype)?;
        n = crate::build::mul(g, n, len)?;
    }
    Ok(n)
}

/// `var(x, axis, ddof, keepdims, corrected)`, named `var`.
pub fn var(g: &mut Graph, x: VarId, m: &Moments) -> Result<VarId> {
    let axis = m.axis.as_deref();
    let mu = mean(g, x, axis, true, None)?;
    let centred = sub(g, x, mu)?;
    let n = count(g, x, axis, tensor_type(g, centred)?.dtype)?;
    // `sqr`, not `** 2`: without fusion a float power runs `powf` per element.
    let squares = sqr(g, centred)?;
    let mut ss = sum_keepdims(g, squares, axis, m.keepdims)?;
    if m.corrected {
        let s = sum_keepdims(g, centred, axis, m.keepdims)?;
        let two = int_constant(g, 2)?;
        let s2 = crate::build::pow(g, s, two)?;
        let term = true_div(g, s2, n)?;
        ss = sub(g, ss, term)?;
    }
    let out = if m.ddof == 0 {
        true_div(g, ss, n)?
    } else {
        // As NumPy: fewer than `ddof + 1` elements divide by zero (NaN or
        // inf), never by a negative count.
        let ddof = int_constant(g, m.ddof)?;
        let dof = sub(g, n, ddof)?;
        let zero = int_constant(g, 0)?;
        let dof = elemwise(g, ScalarKind::Maximum, &[dof, zero])?;
        true_div(g, ss, dof)?
    };
    g.set_name(out, Some("var"));
    Ok(out)
}

/// `std(x, ...)`: the square root of [`var`], named `std`.
pub fn std(g: &mut Graph, x: VarId, m: &Moments) -> Result<VarId> {
    let v = var(g, x, m)?;
    let out = elemwise(g, ScalarKind::Sqrt, &[v])?;
    g.set_name(out, Some("std"));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::testing::graph_with;
    use crate::graph::FunctionGraph;
    use crate::tensor::Tensor;
    use crate::vm::Program;

    fn run(g: Graph, x: VarId, out: VarId, value: Tensor) -> String {
        let fg = FunctionGraph::new(g, vec![x], vec![out]).unwrap();
        let program = Program::link(&fg, Default::default(), &Default::default()).unwrap();
        let got = program.run(vec![value.into()]).unwrap();
        crate::tensor::format_tensor(got[0].tensor().unwrap())
    }

    /// Moments along the one axis `axis`, with the other options' defaults.
    fn along(axis: i64) -> Moments {
        Moments {
            axis: Some(vec![axis]),
            ..Default::default()
        }
    }

    fn matrix() -> (Graph, VarId, Tensor) {
        let (g, [x]) = graph_with([("x", DType::Float64, 2)]);
        let value = Tensor::from_vec(vec![2, 2], vec![1.0, 2.0, 3.0, 6.0]).unwrap();
        (g, x, value)
    }

    #[test]
    fn values_match_numpy() {
        // (moments, np.var / np.std of [[1, 2], [3, 6]] with those arguments)
        let cases = [
            (Moments::default(), false, "3.5"),
            (along(0), false, "[1. 4.]"),
            (
                Moments {
                    axis: Some(vec![-1]),
                    ddof: 1,
                    ..Default::default()
                },
                false,
                "[0.5 4.5]",
            ),
            (
                Moments {
                    axis: Some(vec![1]),
                    keepdims: true,
                    ..Default::default()
                },
                false,
                "[[0.25] [2.25]]",
            ),
            (
                Moments {
                    ddof: 5,
                    ..Default::default()
                },
                false,
                "inf",
            ),
            (
                Moments {
                    corrected: true,
                    ..Default::default()
                },
                false,
                "3.5",
            ),
            (along(0), true, "[1. 2.]"),
        ];
        for (m, is_std, want) in cases {
            let (mut g, x, value) = matrix();
            let out = if is_std {
                std(&mut g, x, &m)
            } else {
                var(&mut g, x, &m)
            }
            .unwrap();
            assert_eq!(run(g, x, out, value), want, "{m:?} std={is_std}");
        }
    }

    #[test]
    fn names_and_the_chain_the_rewrite_recognises() {
        let (mut g, x, _) = matrix();
        let v = var(&mut g, x, &along(1)).unwrap();
        assert_eq!(g.var(v).name.as_deref(), Some("var"));
        let sum = g.node(g.var(v).owner().unwrap()).inputs[0];
        let sqr = g.node(g.var(sum).owner().unwrap()).inputs[0];
        let centred = g.node(g.var(sqr).owner().unwrap()).inputs[0];
        assert_eq!(
            g.describe_node(g.var(centred).owner().unwrap()),
            "Sub(x, mean)"
        );
        let s = std(&mut g, x, &Moments::default()).unwrap();
        assert_eq!(g.var(s).name.as_deref(), Some("std"));
    }

    #[test]
    fn a_bad_axis_is_a_value_error() {
        let (mut g, x, _) = matrix();
        let err = var(&mut g, x, &along(2));
        assert_eq!(
            err.unwrap_err().to_string(),
            "axis 2 is out of bounds for array of dimension 2"
        );
    }
}
