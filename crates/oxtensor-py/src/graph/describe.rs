//! The `str` forms of graph objects, as PyTensor prints them.

use crate::graph::apply::PyApply;
use crate::graph::variable::PyVariable;
use crate::ops::op::op_str;
use pyo3::prelude::*;

/// What `Variable` and `Apply` do alike: `str` and `repr` from `$str`
/// (`variable_str`, `apply_str`), `dprint(**kwargs)`, `__reduce__` with
/// the rest of the graph, and a `tag` made on first use.
macro_rules! graph_object_methods {
    ($py:ty, $str:path) => {
        #[pymethods]
        impl $py {
            /// `debugprint(self, **kwargs)`.
            #[pyo3(signature = (**kwargs))]
            fn dprint<'py>(
                slf: &Bound<'py, Self>,
                kwargs: Option<&Bound<'py, pyo3::types::PyDict>>,
            ) -> PyResult<Bound<'py, PyAny>> {
                $crate::graph::print::dprint_method(slf.as_any(), kwargs)
            }

            fn __str__(slf: &Bound<'_, Self>) -> PyResult<String> {
                $str(slf)
            }

            fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
                $str(slf)
            }

            /// Pickled with the rest of its graph, flat (see `pickle/graph.rs`).
            fn __reduce__<'py>(
                slf: &Bound<'py, Self>,
            ) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
                $crate::pickle::session::reduce(slf.as_any())
            }

            /// An attribute bag for anything users or rewrites want to attach.
            #[getter]
            fn tag(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
                $crate::graph::scratchpad::lazy_tag(py, &mut self.tag)
            }

            #[setter]
            fn set_tag(&mut self, tag: Py<PyAny>) {
                self.tag = Some(tag);
            }
        }
    };
}
pub(crate) use graph_object_methods;

/// `str(variable)`: the name; else `op.out`/`op.k` for an owned variable;
/// else a constant's data (`name{data}` when named); else `<type>`.
pub fn variable_str(var: &Bound<'_, PyVariable>) -> PyResult<String> {
    let py = var.py();
    let v = var.borrow();
    if v.is_constant() {
        drop(v);
        let data = var
            .borrow_mut()
            .data_obj(py)?
            .unwrap_or_else(|| py.None().into_bound(py));
        let v = var.borrow();
        let text = constant_text(&data)?;
        return Ok(match v.name_str(py) {
            Some(name) => format!("{name}{{{text}}}"),
            None => text,
        });
    }
    if let Some(name) = v.name_str(py) {
        return Ok(name);
    }
    if let Some(owner) = &v.owner {
        let op = owner.bind(py).getattr("op")?;
        let default = op.getattr("default_output").ok().filter(|d| !d.is_none());
        let is_default = match default {
            Some(d) => d.extract::<usize>().ok() == v.index,
            None => false,
        };
        let op = op_str(&op)?;
        return Ok(if is_default {
            format!("{op}.out")
        } else {
            format!("{op}.{}", v.index.unwrap_or(0))
        });
    }
    Ok(format!("<{}>", v.ty(py).str()?))
}

/// A constant's data as PyTensor shows it: newlines dropped, long text cut
/// to its first and last ten characters.
pub fn constant_text(data: &Bound<'_, PyAny>) -> PyResult<String> {
    Ok(oxtensor_core::graph::shorten_constant(
        &data.str()?.to_string(),
    ))
}

/// `str(apply)`: `Add(x, ExpandDims{axis=0}.0)`.
pub fn apply_str(node: &Bound<'_, PyApply>) -> PyResult<String> {
    let py = node.py();
    let n = node.borrow();
    let args: Vec<String> = n
        .inputs_list(py)
        .iter()
        .map(|i| Ok(i.str()?.to_string()))
        .collect::<PyResult<_>>()?;
    Ok(format!("{}({})", op_str(&n.op_obj(py))?, args.join(", ")))
}
