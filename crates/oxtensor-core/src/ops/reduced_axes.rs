//! The axes a reduction folds (`axis=None`: all of them) and what they
//! leave: the kept axes' static and symbolic shapes, and how the op prints
//! its axes. One set of rules for `CAReduce`, `Argmax`/`Argmin`,
//! `LogSumExp` and `CentredSquares`, whose `axis` fields all hold sorted,
//! non-negative axes (see [`super::reduce::normalize_axes`]).

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::VarId;
use crate::types::TensorType;

/// `new(axis, ndim)` (negative axes count from the end of a rank-`ndim`
/// input) and `axes(ndim)` (the reduced axes) of an op whose one field is
/// `axis: Option<Vec<usize>>`.
macro_rules! axis_field_methods {
    ($op:ident) => {
        impl $op {
            /// The op over `axis` (negative counts from the end) of an `ndim` input.
            pub fn new(axis: Option<&[i64]>, ndim: usize) -> Result<Self> {
                let axis = axis
                    .map(|a| super::reduce::normalize_axes(a, ndim))
                    .transpose()?;
                Ok($op { axis })
            }

            /// The reduced axes of a rank-`ndim` input.
            pub fn axes(&self, ndim: usize) -> Vec<usize> {
                super::reduced_axes::reduced_axes(self.axis.as_deref(), ndim)
            }
        }
    };
}
pub(crate) use axis_field_methods;

/// The output type of the reduction `op` (as it prints) over `axis` of a
/// real `input`: its static shape without the reduced axes, in `dtype`. A
/// complex input is an error saying that `op` `wants` another.
pub fn real_reduction_type(
    op: &str,
    wants: &str,
    axis: Option<&[usize]>,
    input: &TensorType,
    dtype: DType,
) -> Result<TensorType> {
    if input.dtype.is_complex() {
        return Err(Error::Type(format!(
            "{op} {wants}, not {} (input {input})",
            input.dtype
        )));
    }
    TensorType::new(dtype, kept_static_shape(op, axis, input)?)
}

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
