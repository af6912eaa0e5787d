//! An op's identity from its `__props__`: equality, hash, `str` and `repr`
//! (PyTensor's `MetaObject` rules), for built-in and Python ops alike.

use super::PyOp;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};

/// The `__props__` of an op's class, if it defines any.
pub fn props_of<'py>(op: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyTuple>>> {
    match op.get_type().getattr("__props__") {
        Ok(p) => {
            Ok(Some(p.cast_into::<PyTuple>().map_err(|_| {
                PyTypeError::new_err("__props__ has to be a tuple")
            })?))
        }
        Err(_) => Ok(None),
    }
}

/// `name=value` for each prop, the value shown by `show` (`repr`, `str`).
fn prop_items<'py>(
    op: &Bound<'py, PyAny>,
    props: &Bound<'py, PyTuple>,
    show: impl Fn(&Bound<'py, PyAny>) -> PyResult<Bound<'py, PyString>>,
) -> PyResult<Vec<String>> {
    let values = prop_values(op, props)?;
    props
        .iter()
        .zip(&values)
        .map(|(p, v)| Ok(format!("{}={}", p, show(v)?)))
        .collect()
}

/// The values of the props, in order.
pub(crate) fn prop_values<'py>(
    op: &Bound<'py, PyAny>,
    props: &Bound<'py, PyTuple>,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    props
        .iter()
        .map(|p| {
            let name = p
                .cast_into::<PyString>()
                .map_err(|_| PyTypeError::new_err("elements of __props__ have to be strings"))?;
            op.getattr(&name).map_err(|_| {
                PyTypeError::new_err(format!(
                    "{} lists '{}' in __props__ but has no such attribute",
                    crate::errors::type_name(op),
                    name
                ))
            })
        })
        .collect()
}

/// Whether `cls.<name>` is a different object from `Op.<name>` (overridden).
pub(crate) fn overrides(op: &Bound<'_, PyAny>, name: &str) -> PyResult<bool> {
    let base = op.py().get_type::<PyOp>().getattr(name)?;
    Ok(!op.get_type().getattr(name)?.is(&base))
}

/// The op's `str`, without going through Python for built-in ops.
pub fn op_str(op: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(o) = op.cast::<PyOp>() {
        if let Some(core) = &o.borrow().core {
            if !overrides(op, "__str__")? {
                return Ok(core.describe());
            }
        }
    }
    Ok(op.str()?.to_string())
}

#[pymethods]
impl PyOp {
    pub(crate) fn __eq__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        if slf.is(other) {
            return Ok(true);
        }
        if !slf.get_type().is(other.get_type()) {
            return Ok(false);
        }
        if let (Some(a), Ok(b)) = (&slf.borrow().core, other.cast::<PyOp>()) {
            if let Some(b) = &b.borrow().core {
                return Ok(oxtensor_core::ops::ops_equal(a, b));
            }
        }
        match props_of(slf.as_any())? {
            None => Ok(false),
            Some(props) => {
                let (a, b) = (
                    prop_values(slf.as_any(), &props)?,
                    prop_values(other, &props)?,
                );
                for (x, y) in a.iter().zip(&b) {
                    if !x.eq(y)? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
        }
    }

    pub(crate) fn __hash__(slf: &Bound<'_, Self>) -> PyResult<isize> {
        if let Some(core) = &slf.borrow().core {
            return Ok(core.op_hash() as isize);
        }
        match props_of(slf.as_any())? {
            None => Ok(slf.as_ptr() as isize >> 4),
            Some(props) => {
                let values = PyTuple::new(slf.py(), prop_values(slf.as_any(), &props)?)?;
                (slf.get_type(), values).into_pyobject(slf.py())?.hash()
            }
        }
    }

    /// `Name{p1=repr(v1), p2=repr(v2)}` with props, else the class name.
    pub(crate) fn __str__(slf: &Bound<'_, Self>) -> PyResult<String> {
        if let Some(core) = &slf.borrow().core {
            return Ok(core.describe());
        }
        let name = slf.get_type().name()?.to_string();
        let Some(props) = props_of(slf.as_any())? else {
            return Ok(name);
        };
        if props.is_empty() {
            return Ok(name);
        }
        let items = prop_items(slf.as_any(), &props, |v| v.repr())?;
        Ok(format!("{name}{{{}}}", items.join(", ")))
    }

    /// `Name(p1=v1,p2=v2)`.
    pub(crate) fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        let name = slf.get_type().name()?.to_string();
        let Some(props) = props_of(slf.as_any())? else {
            return Ok(format!("{name}()"));
        };
        let items = prop_items(slf.as_any(), &props, |v| v.str())?;
        Ok(format!("{name}({})", items.join(",")))
    }

    /// The props' values as a tuple.
    pub(crate) fn _props<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let props = props_of(slf.as_any())?.unwrap_or_else(|| PyTuple::empty(slf.py()));
        PyTuple::new(slf.py(), prop_values(slf.as_any(), &props)?)
    }

    /// The props as a dict.
    pub(crate) fn _props_dict<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyDict>> {
        let props = props_of(slf.as_any())?.unwrap_or_else(|| PyTuple::empty(slf.py()));
        let d = PyDict::new(slf.py());
        for (p, v) in props.iter().zip(prop_values(slf.as_any(), &props)?) {
            d.set_item(p, v)?;
        }
        Ok(d)
    }
}
