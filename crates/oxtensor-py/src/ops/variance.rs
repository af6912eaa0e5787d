//! `var` and `std`: argument translation for `oxtensor_core::build::variance`.

use crate::convert::constant::as_tensor_variable;
use crate::convert::scratch_graph::ScratchGraph;
use crate::errors::IntoPyResult;
use crate::graph::tensor_variable::reductions::parse_axes;
use crate::ops::make_node::tensor_type_of;
use oxtensor_core::build::variance::{self, Moments};
use pyo3::prelude::*;

type Builder = fn(
    &mut oxtensor_core::graph::Graph,
    oxtensor_core::graph::VarId,
    &Moments,
) -> oxtensor_core::Result<oxtensor_core::graph::VarId>;

fn build<'py>(x: Bound<'py, PyAny>, m: Moments, builder: Builder) -> PyResult<Bound<'py, PyAny>> {
    let x = as_tensor_variable(x, None, None, None)?;
    tensor_type_of(&x)?;
    let mut scratch = ScratchGraph::default();
    let id = scratch.leaf(&x)?;
    let out = builder(&mut scratch.g, id, &m).py()?;
    scratch.export(x.py(), out)
}

fn moments(
    axis: Option<Bound<'_, PyAny>>,
    ddof: i64,
    keepdims: bool,
    corrected: bool,
) -> PyResult<Moments> {
    Ok(Moments {
        axis: parse_axes(axis)?,
        ddof,
        keepdims,
        corrected,
    })
}

/// `var` and `std`, the same arguments for each core builder.
macro_rules! moment_fns {
    ($($name:ident => $builder:path, $doc:literal;)*) => {$(
        #[doc = $doc]
        #[pyfunction]
        #[pyo3(signature = (x, axis=None, ddof=0, keepdims=false, corrected=false))]
        pub fn $name<'py>(
            x: Bound<'py, PyAny>,
            axis: Option<Bound<'py, PyAny>>,
            ddof: i64,
            keepdims: bool,
            corrected: bool,
        ) -> PyResult<Bound<'py, PyAny>> {
            build(x, moments(axis, ddof, keepdims, corrected)?, $builder)
        }
    )*};
}

moment_fns! {
    var => variance::var, "`var(x, axis=None, ddof=0, keepdims=False, corrected=False)`.";
    std => variance::std, "`std(x, axis=None, ddof=0, keepdims=False, corrected=False)`.";
}
