//! Pickling a `FunctionGraph`: its inputs and outputs (the graph between
//! them goes flat, see `pickle/graph.rs`), its Python features, its
//! `update_mapping` and instance attributes. Loading imports the same
//! objects again (no clone) and, as PyTensor's `__setstate__` does, gives
//! each feature the new graph through its `unpickle` hook instead of
//! attaching it again.

use crate::graph::fgraph::PyFunctionGraph;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

/// The state tuple: `(inputs, outputs, features, update_mapping, dict)`.
type State<'py> = (
    Bound<'py, PyList>,
    Bound<'py, PyList>,
    Bound<'py, PyList>,
    Bound<'py, PyAny>,
    Bound<'py, PyAny>,
);

/// Attributes compilation sets that describe one run, not the graph
/// (`rewrite_profile`: the rewrites' timings), left out of a pickle.
const RUN_ATTRS: &[&str] = &["rewrite_profile"];

/// The instance dict without [`RUN_ATTRS`] and what features list in
/// `pickle_rm_attr` (attributes they set that cannot be pickled, as in
/// PyTensor).
fn picklable_dict<'py>(
    fg: &Bound<'py, PyFunctionGraph>,
    features: &Bound<'py, PyList>,
) -> PyResult<Bound<'py, PyDict>> {
    let dict = fg.getattr("__dict__")?.cast_into::<PyDict>()?.copy()?;
    for name in RUN_ATTRS {
        if dict.contains(name)? {
            dict.del_item(name)?;
        }
    }
    for f in features.iter() {
        let Ok(names) = f.getattr("pickle_rm_attr") else {
            continue;
        };
        for name in names.try_iter()? {
            let name = name?;
            if dict.contains(&name)? {
                dict.del_item(name)?;
            }
        }
    }
    Ok(dict)
}

#[pymethods]
impl PyFunctionGraph {
    /// `copy` and `pickle` make an empty graph, then call `__setstate__`.
    fn __getnewargs__<'py>(slf: &Bound<'py, Self>) -> Bound<'py, PyTuple> {
        PyTuple::empty(slf.py())
    }

    /// Pickles with every protocol (see `reduce_ex_any_protocol`).
    fn __reduce_ex__<'py>(slf: &Bound<'py, Self>, protocol: i64) -> PyResult<Bound<'py, PyAny>> {
        super::reduce_ex_any_protocol(slf.as_any(), protocol)
    }

    /// `(inputs, outputs, features, update_mapping, instance dict)`.
    fn __getstate__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let features = PyList::new(py, slf.borrow().python_features(py))?;
        let dict = picklable_dict(slf, &features)?;
        PyTuple::new(
            py,
            [
                slf.getattr("inputs")?,
                slf.getattr("outputs")?,
                features.into_any(),
                slf.getattr("update_mapping")?,
                dict.into_any(),
            ],
        )
    }

    /// Rebuilds the graph over the given objects (see the module docs).
    fn __setstate__(slf: &Bound<'_, Self>, state: Bound<'_, PyAny>) -> PyResult<()> {
        if slf.borrow().is_built() {
            return Err(PyRuntimeError::new_err(
                "__setstate__ on a FunctionGraph that is already built",
            ));
        }
        let (inputs, outputs, features, update_mapping, dict): State<'_> = state.extract()?;
        Self::build(slf, &inputs, &outputs, Some(update_mapping))?;
        let features: Vec<Py<PyAny>> = features.iter().map(Bound::unbind).collect();
        slf.borrow_mut().set_python_features(features);
        if !dict.is_none() {
            slf.getattr("__dict__")?.call_method1("update", (dict,))?;
        }
        let features = slf.borrow().python_features(slf.py());
        for f in features {
            let f = f.bind(slf.py());
            if f.hasattr("unpickle")? {
                f.call_method1("unpickle", (slf,))?;
            }
        }
        Ok(())
    }

    /// A copy of the graph (`clone()`): two graphs sharing their variables
    /// would fight over each variable's `fgraph` and `clients`.
    fn __copy__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        slf.call_method0("clone")
    }
}
