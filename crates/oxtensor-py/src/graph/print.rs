//! `debugprint` / `dprint`: options parsed here, text made by the core
//! printer over the function graph, or over a scratch import of variables.

use crate::convert::import::Memo;
use crate::errors::choice;
use crate::graph::fgraph::PyFunctionGraph;
use oxtensor_core::graph::{Graph, VarId};
use oxtensor_core::print::{debugprint as core_debugprint, debugprint_vars, IdType, PrintOptions};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use std::collections::HashMap;

/// `debugprint`'s `id_type` values.
const ID_TYPES: [(&str, IdType); 4] = [
    ("CHAR", IdType::Char),
    ("int", IdType::Int),
    ("auto", IdType::Auto),
    ("", IdType::None),
];

fn id_type(text: &str) -> PyResult<IdType> {
    choice(text, &ID_TYPES, |other| {
        format!("id_type must be one of 'CHAR', 'int', 'auto', ''; got '{other}'")
    })
}

/// The function graph of a `FunctionGraph` or a compiled function, if `obj` is one.
fn fgraph_of<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyFunctionGraph>>> {
    if let Ok(fg) = obj.cast::<PyFunctionGraph>() {
        return Ok(Some(fg.clone()));
    }
    if let Ok(maker) = obj.getattr("maker") {
        if let Ok(fg) = maker.getattr("fgraph")?.cast_into::<PyFunctionGraph>() {
            return Ok(Some(fg));
        }
    }
    Ok(None)
}

/// The variables to print for a variable, an `Apply` (its outputs) or a list of them.
fn roots<'py>(obj: &Bound<'py, PyAny>, out: &mut Vec<Bound<'py, PyAny>>) -> PyResult<()> {
    if obj.is_instance_of::<crate::graph::variable::PyVariable>() {
        out.push(obj.clone());
    } else if obj.is_instance_of::<crate::graph::apply::PyApply>() {
        out.extend(
            obj.getattr("outputs")?
                .try_iter()?
                .collect::<PyResult<Vec<_>>>()?,
        );
    } else if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        for item in obj.try_iter()? {
            roots(&item?, out)?;
        }
    } else {
        return Err(PyTypeError::new_err(format!(
            "debugprint cannot print an object type {}",
            obj.get_type().repr()?
        )));
    }
    Ok(())
}

/// What the options say about the variables themselves, read from their
/// Python objects: `auto_name`s for `id_type="auto"`, and with
/// `print_storage` the values a compiled function holds: its constants'
/// (a function keeps no other value between calls).
fn per_variable(
    opts: &mut PrintOptions,
    g: &Graph,
    memo: &Memo,
    py: Python<'_>,
    storage: bool,
) -> PyResult<()> {
    let wants_names = opts.id_type == IdType::Auto;
    let mut held = HashMap::new();
    for v in (0..g.num_vars()).map(|i| VarId(i as u32)) {
        if let (true, Ok(obj)) = (wants_names, memo.var(py, v)) {
            let name = obj.getattr("auto_name")?.str()?.to_string();
            opts.auto_names.insert(v, name);
        }
        if let (true, Some(c)) = (storage, g.var(v).constant()) {
            held.insert(v, c.display.clone());
        }
    }
    opts.storage = storage.then_some(held);
    Ok(())
}

fn render(
    graph_like: &Bound<'_, PyAny>,
    opts: &PrintOptions,
    print_storage: bool,
) -> PyResult<String> {
    let py = graph_like.py();
    if let Some(fg) = fgraph_of(graph_like)? {
        let fg = fg.borrow();
        let (core, memo) = fg.parts()?;
        let mut opts = opts.clone();
        let storage = print_storage && graph_like.hasattr("maker")?;
        per_variable(&mut opts, core.graph(), memo, py, storage)?;
        return Ok(core_debugprint(core, &opts));
    }
    let items: Vec<Bound<'_, PyAny>> =
        if graph_like.is_instance_of::<PyList>() || graph_like.is_instance_of::<PyTuple>() {
            graph_like.try_iter()?.collect::<PyResult<_>>()?
        } else {
            vec![graph_like.clone()]
        };
    if items
        .iter()
        .any(|i| fgraph_of(i).is_ok_and(|f| f.is_some()))
    {
        return items
            .iter()
            .map(|i| render(i, opts, print_storage))
            .collect();
    }
    let mut vars = Vec::new();
    roots(graph_like, &mut vars)?;
    let (mut g, mut memo) = (Graph::new(), Memo::default());
    let ids: Vec<VarId> = vars
        .iter()
        .map(|v| memo.import_var(&mut g, v))
        .collect::<PyResult<_>>()?;
    let mut opts = opts.clone();
    per_variable(&mut opts, &g, &memo, py, false)?;
    Ok(debugprint_vars(&g, &ids, &opts))
}

/// `oxtensor.dprint(graph_like, depth=-1, print_type=False, file=None, ...)`:
/// prints to stdout, returns the text with `file="str"`, or writes to `file`.
#[pyfunction]
#[pyo3(signature = (graph_like, depth = -1, print_type = false, print_shape = false, file = None, id_type = "CHAR", stop_on_name = false, print_destroy_map = false, print_view_map = false, print_storage = false, **_kwargs))]
#[allow(clippy::too_many_arguments)]
pub fn debugprint<'py>(
    graph_like: Bound<'py, PyAny>,
    depth: i64,
    print_type: bool,
    print_shape: bool,
    file: Option<Bound<'py, PyAny>>,
    id_type: &str,
    stop_on_name: bool,
    print_destroy_map: bool,
    print_view_map: bool,
    print_storage: bool,
    _kwargs: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = graph_like.py();
    let opts = PrintOptions {
        print_type,
        print_shape,
        id_type: self::id_type(id_type)?,
        depth: usize::try_from(depth).ok(),
        stop_on_name,
        print_destroy_map,
        print_view_map,
        ..PrintOptions::default()
    };
    let text = render(&graph_like, &opts, print_storage)?;
    match file {
        Some(f) if f.extract::<String>().is_ok_and(|s| s == "str") => {
            Ok(text.into_pyobject(py)?.into_any())
        }
        Some(f) if !f.is_none() => {
            f.call_method1("write", (text,))?;
            Ok(f)
        }
        _ => {
            let stdout = py.import("sys")?.getattr("stdout")?;
            stdout.call_method1("write", (text,))?;
            Ok(stdout)
        }
    }
}

/// `x.dprint(**kwargs)` on variables, nodes and graphs: `debugprint(x, **kwargs)`.
pub fn dprint_method<'py>(
    obj: &Bound<'py, PyAny>,
    kwargs: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    wrap_pyfunction!(debugprint, obj.py())?.call((obj,), kwargs)
}
