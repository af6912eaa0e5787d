//! Python index objects (`x[1, ::2, None, ...]`, masks, lists) translated
//! into the items of the core's NumPy index parser
//! (`oxtensor_core::build::numpy_index`), and the `_core` functions behind
//! `x[...]`, `inc_subtensor`/`set_subtensor` and `take`.

use crate::convert::constant::{as_tensor_variable, constant};
use crate::convert::scratch_graph::ScratchGraph;
use crate::errors::IntoPyResult;
use crate::graph::types::parse_dtype;
use crate::graph::variable::PyVariable;
use oxtensor_core::build::numpy_index::{self as parser, IncOptions, IndexBound, IndexItem};
use oxtensor_core::dtype::{autocast_int, DType};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyEllipsis, PyInt, PyList, PySlice, PyString, PyTuple};

type Out<'py> = PyResult<Bound<'py, PyAny>>;

fn numpy_attr<'py>(py: Python<'py>, name: &str) -> Out<'py> {
    py.import("numpy")?.getattr(name)
}

/// Whether `obj` is a Python or NumPy bool, or a list or tuple holding one
/// (or holding a boolean variable, which PyTensor refuses there too).
fn has_python_bool(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    if obj.is_instance_of::<PyBool>() || obj.is_instance(&numpy_attr(obj.py(), "bool_")?)? {
        return Ok(true);
    }
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        for e in obj.try_iter()? {
            let e = e?;
            if has_python_bool(&e)? || is_bool_variable(&e)? {
                return Ok(true);
            }
        }
    }
    Ok(false)
}

/// A symbolic variable of dtype bool.
fn is_bool_variable(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    if !obj.is_instance_of::<PyVariable>() {
        return Ok(false);
    }
    let dtype = obj.getattr("type")?.getattr("dtype").ok();
    Ok(dtype.is_some_and(|d| d.extract::<String>().is_ok_and(|d| d == "bool")))
}

/// A NumPy integer or 0-d integer array as `(value, dtype)`; `None` for
/// anything else (or a value beyond int64).
fn numpy_int(obj: &Bound<'_, PyAny>) -> PyResult<Option<(i64, DType)>> {
    let py = obj.py();
    let is_array = obj.is_instance(&numpy_attr(py, "ndarray")?)?;
    let is_int = obj.is_instance(&numpy_attr(py, "integer")?)?;
    if !(is_int || is_array && obj.getattr("ndim")?.extract::<usize>()? == 0) {
        return Ok(None);
    }
    let dtype = obj.getattr("dtype")?;
    if !matches!(
        dtype.getattr("kind")?.extract::<String>()?.as_str(),
        "i" | "u"
    ) {
        return Ok(None);
    }
    let value = obj.call_method0("item")?;
    match value.extract::<i64>() {
        Ok(v) => Ok(Some((v, parse_dtype(&dtype)?))),
        Err(_) => Ok(None),
    }
}

/// A variable used as an index or bound: a scalar variable (`ScalarType`)
/// as a 0-d tensor, as PyTensor takes it; others as they are.
fn as_tensor_index<'py>(obj: &Bound<'py, PyAny>) -> Out<'py> {
    let ty = obj.cast::<PyVariable>()?.borrow().ty(obj.py());
    if ty.is_instance_of::<crate::graph::types::PyScalarType>() {
        return as_tensor_variable(obj.clone(), None, None, None);
    }
    Ok(obj.clone())
}

/// A Python index object as a parser item.
fn item(scratch: &mut ScratchGraph, obj: &Bound<'_, PyAny>) -> PyResult<IndexItem> {
    let py = obj.py();
    if obj.is_none() {
        return Ok(IndexItem::NewAxis);
    }
    if obj.is_instance_of::<PyEllipsis>() {
        return Ok(IndexItem::Ellipsis);
    }
    if let Ok(s) = obj.cast::<PySlice>() {
        return Ok(IndexItem::Slice {
            start: bound(scratch, &s.getattr("start")?)?,
            stop: bound(scratch, &s.getattr("stop")?)?,
            step: bound(scratch, &s.getattr("step")?)?,
        });
    }
    if obj.is_instance_of::<PyVariable>() {
        // A variable of `NoneTypeT` (`NoneConst`) stands for `None`, as in
        // PyTensor.
        if obj.getattr("type")?.get_type().name()? == "NoneTypeT" {
            return Ok(IndexItem::NewAxis);
        }
        return Ok(IndexItem::Var(scratch.leaf(&as_tensor_index(obj)?)?));
    }
    if has_python_bool(obj)? {
        return Ok(IndexItem::PythonBool);
    }
    if obj.is_instance_of::<PyInt>() {
        if let Ok(value) = obj.extract::<i64>() {
            let dtype = autocast_int(value.into()).py()?;
            return Ok(IndexItem::Int { value, dtype });
        }
    }
    if let Some((value, dtype)) = numpy_int(obj)? {
        return Ok(IndexItem::Int { value, dtype });
    }
    let empty =
        (obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>()) && obj.len()? == 0;
    let var = if empty {
        // NumPy reads `x[[]]` as an empty integer index.
        constant(
            obj.clone(),
            None,
            None,
            Some(PyString::new(py, "uint8").into_any()),
        )?
    } else {
        as_tensor_variable(obj.clone(), None, None, None)?
    };
    Ok(IndexItem::Var(scratch.leaf(&var)?))
}

/// A slice bound: `None`, an integer (Python, NumPy, or a one-element
/// integer array), a variable, or something that is no integer.
fn bound(scratch: &mut ScratchGraph, obj: &Bound<'_, PyAny>) -> PyResult<Option<IndexBound>> {
    if obj.is_none() {
        return Ok(None);
    }
    if obj.is_instance_of::<PyVariable>() {
        return Ok(Some(IndexBound::Var(scratch.leaf(&as_tensor_index(obj)?)?)));
    }
    let py = obj.py();
    let is_int = obj.is_instance_of::<PyInt>() || obj.is_instance(&numpy_attr(py, "integer")?)?;
    let int_array = obj.is_instance(&numpy_attr(py, "ndarray")?)?
        && matches!(
            obj.getattr("dtype")?
                .getattr("kind")?
                .extract::<String>()?
                .as_str(),
            "i" | "u"
        )
        && obj.getattr("size")?.extract::<usize>()? == 1;
    let value = match (is_int, int_array) {
        (true, _) => obj.extract::<i64>().ok(),
        (_, true) => obj.call_method0("item")?.extract::<i64>().ok(),
        _ => None,
    };
    Ok(Some(value.map_or(IndexBound::NotInteger, IndexBound::Int)))
}

/// The items of `args` (one index object or a tuple of them).
fn items(scratch: &mut ScratchGraph, args: &Bound<'_, PyAny>) -> PyResult<Vec<IndexItem>> {
    match args.cast::<PyTuple>() {
        Ok(t) => t.iter().map(|a| item(scratch, &a)).collect(),
        Err(_) => Ok(vec![item(scratch, args)?]),
    }
}

/// `x[args]`; `kind` `"basic"` or `"advanced"` forces the op
/// (`basic_subtensor`, `advanced_subtensor`), else NumPy's rules choose.
#[pyfunction]
#[pyo3(signature = (x, args, kind = None))]
pub fn getitem<'py>(x: Bound<'py, PyAny>, args: Bound<'py, PyAny>, kind: Option<&str>) -> Out<'py> {
    let mut scratch = ScratchGraph::default();
    let xid = scratch.leaf(&x)?;
    let items = items(&mut scratch, &args)?;
    let out = match kind {
        None => parser::getitem(&mut scratch.g, xid, &items),
        Some("basic") => parser::index(&mut scratch.g, xid, &items, true),
        Some("advanced") => parser::index(&mut scratch.g, xid, &items, false),
        Some(other) => {
            return Err(PyValueError::new_err(format!(
                "kind must be None, 'basic' or 'advanced', not {other:?}"
            )))
        }
    }
    .py()?;
    scratch.export(x.py(), out)
}

/// `inc_subtensor(x, y, ...)`: `x` must be the result of an indexing op.
#[pyfunction]
#[pyo3(signature = (x, y, inplace = false, set_instead_of_inc = false, ignore_duplicates = false))]
pub fn inc_subtensor<'py>(
    x: Bound<'py, PyAny>,
    y: Bound<'py, PyAny>,
    inplace: bool,
    set_instead_of_inc: bool,
    ignore_duplicates: bool,
) -> Out<'py> {
    let x = as_tensor_variable(x, None, None, None)?;
    let y = as_tensor_variable(y, None, None, None)?;
    let mut scratch = ScratchGraph::default();
    let xid = scratch.with_owner(&x)?;
    let yid = scratch.leaf(&y)?;
    let opts = IncOptions {
        inplace,
        set_instead_of_inc,
        ignore_duplicates,
    };
    let out = parser::inc_subtensor(&mut scratch.g, xid, yid, opts).py()?;
    scratch.export(x.py(), out)
}

/// `take(a, indices, axis=None)`.
#[pyfunction]
#[pyo3(signature = (a, indices, axis = None))]
pub fn take<'py>(a: Bound<'py, PyAny>, indices: Bound<'py, PyAny>, axis: Option<i64>) -> Out<'py> {
    let a = as_tensor_variable(a, None, None, None)?;
    let indices = as_tensor_variable(indices, None, None, None)?;
    let mut scratch = ScratchGraph::default();
    let (aid, iid) = (scratch.leaf(&a)?, scratch.leaf(&indices)?);
    let out = parser::take(&mut scratch.g, aid, iid, axis).py()?;
    scratch.export(a.py(), out)
}
