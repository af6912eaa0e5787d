//! Creating graph objects from Rust: variables of any `Variable` subclass,
//! tensor variables and constants, and `Apply.clone_with_new_inputs`.

use crate::graph::apply::PyApply;
use crate::graph::scratchpad::copy_tag;
use crate::graph::tensor_variable::PyTensorVariable;
use crate::graph::variable::PyVariable;
use crate::registry;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple, PyType};

/// A `TensorVariable` built directly (no Python constructor runs).
pub fn tensor_variable(
    py: Python<'_>,
    ty: Py<PyAny>,
    name: Option<Py<PyAny>>,
) -> PyResult<Bound<'_, PyAny>> {
    let init = PyClassInitializer::from(PyVariable::with(ty, None, None, name))
        .add_subclass(PyTensorVariable);
    Ok(Bound::new(py, init)?.into_any())
}

/// An instance of `cls` (a `Variable` class) holding `fields`; Python
/// subclasses are allocated through `__new__`, skipping their `__init__`.
pub fn variable_of_class<'py>(
    py: Python<'py>,
    cls: &Bound<'py, PyType>,
    fields: PyVariable,
) -> PyResult<Bound<'py, PyAny>> {
    if cls.is(py.get_type::<PyTensorVariable>()) {
        let init = PyClassInitializer::from(fields).add_subclass(PyTensorVariable);
        return Ok(Bound::new(py, init)?.into_any());
    }
    if cls.is(py.get_type::<PyVariable>()) {
        return Ok(Bound::new(py, fields)?.into_any());
    }
    let shell = allocate(py, cls)?;
    let var = shell.cast::<PyVariable>().map_err(|_| {
        PyTypeError::new_err(format!(
            "{} is not a Variable class",
            cls.name().map(|n| n.to_string()).unwrap_or_default()
        ))
    })?;
    *var.borrow_mut() = fields;
    Ok(shell)
}

/// Allocates an instance of a Python subclass of `Variable` through its
/// `tp_new` slot (our `#[new]`, inherited), skipping the Python-level
/// `__new__` call and the subclass's `__init__`.
fn allocate<'py>(py: Python<'py>, cls: &Bound<'py, PyType>) -> PyResult<Bound<'py, PyAny>> {
    let tp = cls.as_type_ptr();
    // SAFETY: `tp` is a live type object; reading its `tp_new` slot is how
    // `type.__call__` finds the allocator too.
    let new =
        unsafe { (*tp).tp_new }.ok_or_else(|| PyTypeError::new_err("type has no allocator"))?;
    let args = PyTuple::empty(py);
    // SAFETY: calling `tp_new(type, (), NULL)` is what `cls.__new__(cls)`
    // does; it returns a new reference or NULL with an exception set.
    unsafe { Bound::from_owned_ptr_or_err(py, new(tp, args.as_ptr(), std::ptr::null_mut())) }
}

/// The `TensorConstant` class, looked up in the registry once (every
/// literal in an expression makes one).
fn tensor_constant_class(py: Python<'_>) -> PyResult<Bound<'_, PyType>> {
    static CLASS: pyo3::sync::PyOnceLock<Py<PyType>> = pyo3::sync::PyOnceLock::new();
    let cls = CLASS.get_or_try_init(py, || {
        Ok::<_, PyErr>(
            registry::registered(py, "TensorConstant")?
                .cast_into::<PyType>()?
                .unbind(),
        )
    })?;
    Ok(cls.bind(py).clone())
}

/// A `TensorConstant` holding a core tensor; its NumPy `data` is made on
/// first access.
pub fn tensor_constant_of<'py>(
    py: Python<'py>,
    ty: Py<PyAny>,
    tensor: oxtensor_core::tensor::Tensor,
    name: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let cls = tensor_constant_class(py)?;
    let mut fields = PyVariable::with(
        ty,
        None,
        None,
        name.filter(|n| !n.is_none()).map(Bound::unbind),
    );
    fields.tensor = Some(tensor);
    variable_of_class(py, &cls, fields)
}

/// A `ScalarConstant` of scalar type `ty` holding a core 0-d tensor's
/// value as a NumPy scalar.
pub fn scalar_constant_of<'py>(
    py: Python<'py>,
    ty: Py<PyAny>,
    tensor: &oxtensor_core::tensor::Tensor,
    name: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let arr = crate::convert::array::array_from_tensor(py, tensor, false)?;
    let value = arr.get_item(PyTuple::empty(py))?;
    let cls = registry::registered(py, "ScalarConstant")?;
    cls.call1((ty, value, name))
}

/// `Apply.clone_with_new_inputs`: the same op on new inputs. An input of a
/// different type goes through the old type's `filter_variable` (`strict`)
/// and, if the type still differs, the node is rebuilt by `make_node`.
pub fn clone_with_new_inputs<'py>(
    node: &Bound<'py, PyApply>,
    inputs: Bound<'py, PyAny>,
    strict: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let py = node.py();
    let (op, old_inputs, tag) = {
        let n = node.borrow();
        (n.op_obj(py), n.inputs_list(py), copy_tag(py, &n.tag)?)
    };
    let had = old_inputs.len();
    let new = crate::errors::n_items(&inputs, had, |got| {
        let node = node.str()?;
        Ok(format!("{node} has {had} inputs, got {got} new ones"))
    })?;
    let mut remake = op
        .getattr("_output_type_depends_on_input_value")
        .map(|v| v.is_truthy().unwrap_or(false))
        .unwrap_or(false);
    let mut filtered = Vec::with_capacity(new.len());
    for (cur, n) in old_inputs.iter().zip(new) {
        let cur_ty = cur.getattr("type")?;
        let mut n = n;
        if !cur_ty.eq(n.getattr("type")?)? {
            if strict {
                n = cur_ty.call_method1("filter_variable", (&n,))?;
                remake |= !cur_ty.eq(n.getattr("type")?)?;
            } else {
                remake = true;
            }
        }
        filtered.push(n);
    }
    if remake {
        let new_node = op.call_method1("make_node", PyTuple::new(py, filtered)?)?;
        if let Some(tag) = tag {
            let merged = tag.bind(py);
            merged.call_method1("__update__", (new_node.getattr("tag")?,))?;
            new_node.setattr("tag", merged)?;
        }
        return Ok(new_node);
    }
    let copy = node.call_method0("clone")?;
    copy.setattr("inputs", PyList::new(py, filtered)?)?;
    Ok(copy)
}
