//! `matmul`, NumPy's `@` built from `ExpandDims`, `Matmul` and `Squeeze`.

use crate::convert::constant::as_tensor_variable;
use crate::ops::make_node::{apply_core, dimshuffle, tensor_type_of};
use oxtensor_core::ops::dimshuffle::Axis;
use oxtensor_core::ops::matmul::Matmul;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::sync::Arc;

/// `x` with `n` new leading axes (`ExpandDims`), `x` itself if `n` is 0.
fn pad_front<'py>(x: Bound<'py, PyAny>, ndim: usize, n: usize) -> PyResult<Bound<'py, PyAny>> {
    if n == 0 {
        return Ok(x);
    }
    let order: Vec<Axis> = std::iter::repeat_n(None, n)
        .chain((0..ndim).map(Some))
        .collect();
    dimshuffle(&x, order)
}

/// `matmul(x1, x2)` (`x1 @ x2`): NumPy's rules. A vector becomes a row
/// (first operand) or a column (second), the shorter stack gets leading
/// axes, one `Matmul` runs, and the vectors' axes are squeezed away.
#[pyfunction]
pub fn matmul<'py>(x1: Bound<'py, PyAny>, x2: Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let x1 = as_tensor_variable(x1, None, None, None)?;
    let x2 = as_tensor_variable(x2, None, None, None)?;
    let (n1, n2) = (tensor_type_of(&x1)?.ndim(), tensor_type_of(&x2)?.ndim());
    if n1 == 0 || n2 == 0 {
        return Err(PyValueError::new_err("matmul operand cannot be scalar"));
    }
    let a = if n1 == 1 {
        dimshuffle(&x1, vec![None, Some(0)])?
    } else {
        x1
    };
    let b = if n2 == 1 {
        dimshuffle(&x2, vec![Some(0), None])?
    } else {
        x2
    };
    let (na, nb) = (n1.max(2), n2.max(2));
    let nd = na.max(nb);
    let a = pad_front(a, na, nd - na)?;
    let b = pad_front(b, nb, nd - nb)?;
    let out = apply_core(a.py(), Arc::new(Matmul), vec![a, b])?;
    let from_vector = |i: usize| (n1 == 1 && i == nd - 2) || (n2 == 1 && i == nd - 1);
    let keep: Vec<Axis> = (0..nd).filter(|&i| !from_vector(i)).map(Some).collect();
    if keep.len() == nd {
        return Ok(out);
    }
    dimshuffle(&out, keep)
}
