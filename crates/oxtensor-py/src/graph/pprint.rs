//! `pprint`, the proven sign of a variable and the canonical form of a
//! slice: Python graphs imported into an arena for the core's
//! `pprint`, `build::sign` and `build::canonical_slice`.

use crate::convert::import::Memo;
use crate::convert::scratch_graph::ScratchGraph;
use crate::errors::IntoPyResult;
use oxtensor_core::build::canonical_slice::{canonical_slice as core_canonical, Direction};
use oxtensor_core::build::sign::{proven_sign as core_sign, Sign};
use oxtensor_core::graph::Graph;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// `pprint(var)`: the expression of `var` as a user would type it.
#[pyfunction]
pub fn pprint(var: Bound<'_, PyAny>) -> PyResult<String> {
    let (mut g, mut memo) = (Graph::new(), Memo::default());
    let id = memo.import_var(&mut g, &var)?;
    Ok(oxtensor_core::pprint::pprint(&g, id))
}

/// What the graph proves of `var`'s sign: `"positive"`, `"non_negative"` or `"unknown"`.
#[pyfunction]
pub fn proven_sign(var: Bound<'_, PyAny>) -> PyResult<&'static str> {
    let (mut g, mut memo) = (Graph::new(), Memo::default());
    let id = memo.import_var(&mut g, &var)?;
    Ok(match core_sign(&g, id) {
        Sign::Positive => "positive",
        Sign::NonNegative => "non_negative",
        Sign::Unknown => "unknown",
    })
}

/// `(start, stop, step, direction)` of `slice(start, stop, step)` over
/// `length` in canonical form; bounds are tensor variables or `None`, the
/// direction an int when the step is constant.
#[pyfunction]
#[pyo3(signature = (length, start = None, stop = None, step = None))]
pub fn canonical_slice<'py>(
    length: Bound<'py, PyAny>,
    start: Option<Bound<'py, PyAny>>,
    stop: Option<Bound<'py, PyAny>>,
    step: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyTuple>> {
    let py = length.py();
    let mut scratch = ScratchGraph::default();
    let n = scratch.leaf(&length)?;
    let mut leaf = |b: Option<Bound<'py, PyAny>>| b.map(|b| scratch.leaf(&b)).transpose();
    let bounds = [leaf(start)?, leaf(stop)?, leaf(step)?];
    let c = core_canonical(&mut scratch.g, n, bounds).py()?;
    let direction = match c.direction {
        Direction::Known(d) => d.into_pyobject(py)?.into_any(),
        Direction::Var(v) => scratch.export(py, v)?,
    };
    let parts = [
        scratch.export(py, c.start)?,
        scratch.export(py, c.stop)?,
        scratch.export(py, c.step)?,
        direction,
    ];
    PyTuple::new(py, parts)
}
