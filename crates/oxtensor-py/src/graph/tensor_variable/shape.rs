//! `TensorVariable` methods for the shape and joining functions
//! (`x.squeeze()`, `x.swapaxes(0, 1)`, `x.repeat(2)`, `x.flatten(2)`): each
//! forwards to the Python function of the same name, which composes the
//! built-in ops as PyTensor does.

use crate::graph::tensor_variable::PyTensorVariable;
use pyo3::prelude::*;

type Out<'py> = PyResult<Bound<'py, PyAny>>;

/// Calls `oxtensor.tensor.<module>.<name>(x, *args)`.
fn forward<'py>(
    x: &Bound<'py, PyTensorVariable>,
    module: &str,
    name: &str,
    args: Vec<Bound<'py, PyAny>>,
) -> Out<'py> {
    let py = x.py();
    let f = py
        .import(format!("oxtensor.tensor.{module}"))?
        .getattr(name)?;
    let mut all = vec![x.clone().into_any()];
    all.extend(args);
    f.call1(pyo3::types::PyTuple::new(py, all)?)
}

/// `x.flatten(ndim)` for `ndim` other than 1 (`Reshape` with the leading lengths).
pub fn flatten_to<'py>(x: &Bound<'py, PyTensorVariable>, ndim: usize) -> Out<'py> {
    let n = ndim.into_pyobject(x.py())?.into_any();
    forward(x, "basic", "flatten", vec![n])
}

#[pymethods]
impl PyTensorVariable {
    /// `squeeze(x, axis)`: drops length-1 axes.
    #[pyo3(signature = (axis = None))]
    fn squeeze<'py>(slf: &Bound<'py, Self>, axis: Option<Bound<'py, PyAny>>) -> Out<'py> {
        let axis = axis.unwrap_or_else(|| slf.py().None().into_bound(slf.py()));
        forward(slf, "extra_ops", "squeeze", vec![axis])
    }

    /// `swapaxes(x, axis1, axis2)`.
    fn swapaxes<'py>(
        slf: &Bound<'py, Self>,
        axis1: Bound<'py, PyAny>,
        axis2: Bound<'py, PyAny>,
    ) -> Out<'py> {
        forward(slf, "basic", "swapaxes", vec![axis1, axis2])
    }

    /// `repeat(x, repeats, axis)`.
    #[pyo3(signature = (repeats, axis = None))]
    fn repeat<'py>(
        slf: &Bound<'py, Self>,
        repeats: Bound<'py, PyAny>,
        axis: Option<Bound<'py, PyAny>>,
    ) -> Out<'py> {
        let axis = axis.unwrap_or_else(|| slf.py().None().into_bound(slf.py()));
        forward(slf, "extra_ops", "repeat", vec![repeats, axis])
    }
}
