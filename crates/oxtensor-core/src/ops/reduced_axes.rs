//! The axes a reduction folds (`axis=None`: all of them) and what they
//! leave: the kept axes' static and symbolic shapes, and how the op prints
//! its axes. One set of rules for `CAReduce`, `Argmax`/`Argmin`,
//! `LogSumExp` and `CentredSquares`, whose `axis` fields all hold sorted,
//! non-negative axes (see [`super::reduce::normalize_axes`]).

use crate::error::{Error, Result};
use crate::graph::VarId;
use crate::types::TensorType;

/// `axis`, or every axis of a rank-`ndim` input when it is `None`.
pub fn reduced_axes(axis: Option<&[usize]>, ndim: usize) -> Vec<usize> {
    axis.map_or_else(|| (0..ndim).collect(), <[usize]>::to_vec)
}

/// The input's static shape without the reduced axes; an error naming
/// `op` when an axis is past the input's rank (an op built for another).
pub fn kept_static_shape(
    op: &str,
    axis: Option<&[usize]>,
    input: &TensorType,
) -> Result<Vec<Option<u64>>> {
    let axes = reduced_axes(axis, input.ndim());
    if let Some(&bad) = axes.iter().find(|&&a| a >= input.ndim()) {
        return Err(Error::Value(format!(
            "{op}: axis {bad} is out of bounds for array of dimension {}",
            input.ndim()
        )));
    }
    Ok(kept(&axes, &input.shape))
}

/// The input's symbolic shape (one scalar per axis) without the reduced axes.
pub fn kept_shape(axis: Option<&[usize]>, input: &[VarId]) -> Vec<VarId> {
    kept(&reduced_axes(axis, input.len()), input)
}

/// The entries of `shape` at the axes not in `axes`.
fn kept<T: Copy>(axes: &[usize], shape: &[T]) -> Vec<T> {
    let dims = shape.iter().enumerate();
    dims.filter(|(d, _)| !axes.contains(d))
        .map(|(_, &n)| n)
        .collect()
}

/// `axis=1`, `axes=[0, 2]`, `axes=None`: the axes as `CAReduce` prints them.
pub fn axes_prop(axis: Option<&[usize]>) -> String {
    match axis {
        None => "axes=None".into(),
        Some([a]) => format!("axis={a}"),
        Some(a) => format!("axes={a:?}"),
    }
}

/// `axis=(1,)`, `axis=(0, 2)`, `axis=None`: the axes as a Python tuple,
/// as `Argmax` prints them.
pub fn axis_tuple_prop(axis: Option<&[usize]>) -> String {
    match axis {
        None => "axis=None".into(),
        Some([a]) => format!("axis=({a},)"),
        Some(a) => {
            let items: Vec<String> = a.iter().map(|i| i.to_string()).collect();
            format!("axis=({})", items.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;

    #[test]
    fn kept_axes_and_props() {
        assert_eq!(reduced_axes(None, 3), [0, 1, 2]);
        assert_eq!(reduced_axes(Some(&[1]), 3), [1]);
        let x = TensorType::new(DType::Float32, [Some(2), None, Some(4)]).unwrap();
        let shape = kept_static_shape("Op", Some(&[0, 2]), &x).unwrap();
        assert_eq!(shape, [None]);
        let err = kept_static_shape("Op", Some(&[3]), &x).unwrap_err();
        assert!(
            err.to_string().contains("Op: axis 3 is out of bounds"),
            "{err}"
        );
        let cases: [(Option<&[usize]>, &str, &str); 3] = [
            (None, "axes=None", "axis=None"),
            (Some(&[1]), "axis=1", "axis=(1,)"),
            (Some(&[0, 2]), "axes=[0, 2]", "axis=(0, 2)"),
        ];
        for (axis, careduce, tuple) in cases {
            assert_eq!(
                (axes_prop(axis), axis_tuple_prop(axis)),
                (careduce.into(), tuple.into())
            );
        }
    }
}
