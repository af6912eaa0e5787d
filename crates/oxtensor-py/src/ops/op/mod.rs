//! `Op`: the base class of every op. Built-in ops carry a core op and build
//! their nodes in Rust; Python subclasses implement the seeds' contract and
//! the core reaches them through the host adapter (`ops/host_op.rs`).

use crate::graph::apply::PyApply;
use crate::ops::thunk::PyThunk;
use oxtensor_core::ops::OpRef;
use pyo3::exceptions::{PyNotImplementedError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple, PyType};

/// `oxtensor.graph.op.Op`.
#[pyclass(subclass, dict, weakref, module = "oxtensor.graph.op", name = "Op")]
pub struct PyOp {
    /// The core op of a built-in op; `None` for ops written in Python.
    pub core: Option<OpRef>,
}

impl PyOp {
    /// A base initializer for a built-in op.
    pub fn builtin(core: OpRef) -> PyClassInitializer<PyOp> {
        PyClassInitializer::from(PyOp { core: Some(core) })
    }
}

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

/// The values of the props, in order.
fn prop_values<'py>(
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
                    op.get_type()
                        .name()
                        .map(|n| n.to_string())
                        .unwrap_or_default(),
                    name
                ))
            })
        })
        .collect()
}

/// Whether `cls.<name>` is a different object from `Op.<name>` (overridden).
fn overrides(op: &Bound<'_, PyAny>, name: &str) -> PyResult<bool> {
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
    #[new]
    #[pyo3(signature = (*_args, **_kwargs))]
    fn new(_args: &Bound<'_, PyTuple>, _kwargs: Option<&Bound<'_, PyDict>>) -> Self {
        PyOp { core: None }
    }

    #[pyo3(signature = (*_args, **_kwargs))]
    fn __init__(&self, _args: &Bound<'_, PyTuple>, _kwargs: Option<&Bound<'_, PyDict>>) {}

    /// Checks `__props__` when a subclass is created and keeps PyTensor's
    /// rules: a class that lists props gets the props-based `__str__` even
    /// if a base defines one, and keeps a hash when it defines `__eq__`.
    #[classmethod]
    #[pyo3(signature = (**_kwargs))]
    fn __init_subclass__(
        cls: &Bound<'_, PyType>,
        _kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<()> {
        let dict = cls.getattr("__dict__")?;
        let Ok(props) = dict.get_item("__props__") else {
            return Ok(());
        };
        let props = props
            .cast_into::<PyTuple>()
            .map_err(|_| PyTypeError::new_err("__props__ has to be a tuple"))?;
        if props.iter().any(|p| !p.is_instance_of::<PyString>()) {
            return Err(PyTypeError::new_err(
                "elements of __props__ have to be strings",
            ));
        }
        let base = cls.py().get_type::<PyOp>();
        if !dict.contains("__str__")? {
            cls.setattr("__str__", base.getattr("__str__")?)?;
        }
        if dict.get_item("__hash__").is_ok_and(|h| h.is_none()) {
            cls.setattr("__hash__", base.getattr("__hash__")?)?;
        }
        Ok(())
    }

    /// Lets `copy` and `pickle` rebuild an op written in Python from its
    /// `__dict__` (without it, CPython refuses objects with a native
    /// layout). Built-in ops keep their state in Rust, which a bare
    /// `__new__` cannot restore: each defines `__getnewargs_ex__` with its
    /// constructor's arguments, and one that does not is refused by name.
    fn __getnewargs__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        if slf.borrow().core.is_some() {
            return Err(PyTypeError::new_err(format!(
                "cannot copy or pickle the built-in op {}",
                op_str(slf.as_any())?
            )));
        }
        if overrides(slf.as_any(), "__new__")? {
            return Err(PyTypeError::new_err(format!(
                "cannot copy or pickle the op {}: its class defines __new__, so it must also define __getnewargs__ (or __reduce__)",
                op_str(slf.as_any())?
            )));
        }
        Ok(PyTuple::empty(slf.py()))
    }

    /// Which output `__call__` returns.
    #[classattr]
    fn default_output(py: Python<'_>) -> Py<PyAny> {
        py.None()
    }

    /// `{output: [input]}`: outputs that are views of inputs.
    #[classattr]
    fn view_map(py: Python<'_>) -> Py<PyDict> {
        PyDict::new(py).unbind()
    }

    /// `{output: [inputs]}`: outputs computed by overwriting inputs.
    #[classattr]
    fn destroy_map(py: Python<'_>) -> Py<PyDict> {
        PyDict::new(py).unbind()
    }

    /// Input types for the default `make_node` (with `otypes`).
    #[classattr]
    fn itypes(py: Python<'_>) -> Py<PyAny> {
        py.None()
    }

    /// Output types for the default `make_node` (with `itypes`).
    #[classattr]
    fn otypes(py: Python<'_>) -> Py<PyAny> {
        py.None()
    }

    /// Forces `clone_with_new_inputs` to rebuild nodes of this op.
    #[classattr]
    fn _output_type_depends_on_input_value() -> bool {
        false
    }

    /// Builds the node for these inputs. Built-in ops infer types in Rust;
    /// Python ops define `make_node`, or `itypes` and `otypes`.
    #[pyo3(signature = (*inputs))]
    fn make_node<'py>(
        slf: &Bound<'py, Self>,
        inputs: &Bound<'py, PyTuple>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let core = slf.borrow().core.clone();
        if let Some(core) = core {
            return Ok(crate::ops::make_node::builtin(
                slf.as_any(),
                &core,
                inputs.iter().collect(),
            )?
            .into_any());
        }
        make_node_from_itypes(slf.as_any(), inputs)
    }

    /// `make_node`, then the default output (or all outputs); see the seeds.
    #[pyo3(signature = (*inputs, **kwargs))]
    fn __call__<'py>(
        slf: &Bound<'py, Self>,
        inputs: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (name, return_list, kwargs) = split_call_kwargs(kwargs)?;
        let node = slf.call_method("make_node", inputs, kwargs.as_ref())?;
        let outputs = node.getattr("outputs")?.cast_into::<PyList>()?;
        let default = slf.getattr("default_output")?;
        if let Some(name) = &name {
            name_outputs(&outputs, &default, name)?;
        }
        if !default.is_none() {
            let out = outputs.get_item(default.extract::<usize>()?)?;
            return Ok(if return_list {
                PyList::new(slf.py(), [out])?.into_any()
            } else {
                out
            });
        }
        if return_list {
            return Ok(PyList::new(slf.py(), outputs.iter())?.into_any());
        }
        if outputs.len() == 1 {
            return outputs.get_item(0);
        }
        Ok(outputs.into_any())
    }

    fn __eq__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
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

    fn __hash__(slf: &Bound<'_, Self>) -> PyResult<isize> {
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
    fn __str__(slf: &Bound<'_, Self>) -> PyResult<String> {
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
        let values = prop_values(slf.as_any(), &props)?;
        let items: Vec<String> = props
            .iter()
            .zip(&values)
            .map(|(p, v)| Ok(format!("{}={}", p, v.repr()?)))
            .collect::<PyResult<_>>()?;
        Ok(format!("{name}{{{}}}", items.join(", ")))
    }

    /// `Name(p1=v1,p2=v2)`.
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        let name = slf.get_type().name()?.to_string();
        let Some(props) = props_of(slf.as_any())? else {
            return Ok(format!("{name}()"));
        };
        let values = prop_values(slf.as_any(), &props)?;
        let items: Vec<String> = props
            .iter()
            .zip(&values)
            .map(|(p, v)| Ok(format!("{}={}", p, v.str()?)))
            .collect::<PyResult<_>>()?;
        Ok(format!("{name}({})", items.join(",")))
    }

    /// The props' values as a tuple.
    fn _props<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let props = props_of(slf.as_any())?.unwrap_or_else(|| PyTuple::empty(slf.py()));
        PyTuple::new(slf.py(), prop_values(slf.as_any(), &props)?)
    }

    /// The props as a dict.
    fn _props_dict<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyDict>> {
        let props = props_of(slf.as_any())?.unwrap_or_else(|| PyTuple::empty(slf.py()));
        let d = PyDict::new(slf.py());
        for (p, v) in props.iter().zip(prop_values(slf.as_any(), &props)?) {
            d.set_item(p, v)?;
        }
        Ok(d)
    }

    /// Whether constant folding may precompute this node (default `True`).
    fn do_constant_folding(&self, fgraph: Bound<'_, PyAny>, node: Bound<'_, PyAny>) -> bool {
        let _ = (fgraph, node);
        true
    }

    /// Hook called before thunks are made; does nothing by default.
    #[pyo3(signature = (node, storage_map, compute_map, r#impl))]
    fn prepare_node(
        &self,
        node: Bound<'_, PyAny>,
        storage_map: Bound<'_, PyAny>,
        compute_map: Bound<'_, PyAny>,
        r#impl: Bound<'_, PyAny>,
    ) {
        let _ = (node, storage_map, compute_map, r#impl);
    }

    /// A thunk that calls `perform` on the node's storage cells.
    #[pyo3(signature = (node, storage_map, compute_map, no_recycling, debug = false))]
    fn make_py_thunk<'py>(
        slf: &Bound<'py, Self>,
        node: Bound<'py, PyAny>,
        storage_map: Bound<'py, PyAny>,
        compute_map: Bound<'py, PyAny>,
        no_recycling: Bound<'py, PyAny>,
        debug: bool,
    ) -> PyResult<Bound<'py, PyThunk>> {
        let _ = no_recycling;
        let method = if debug && slf.hasattr("debug_perform")? {
            "debug_perform"
        } else {
            "perform"
        };
        let perform = slf.getattr(method).map_err(|_| {
            PyNotImplementedError::new_err(format!(
                "{} defines neither perform nor make_thunk",
                slf.get_type()
                    .name()
                    .map(|n| n.to_string())
                    .unwrap_or_default()
            ))
        })?;
        PyThunk::for_node(perform, &node, &storage_map, &compute_map)
    }

    /// `prepare_node`, then `make_py_thunk` (the seeds' `make_thunk`).
    #[pyo3(signature = (node, storage_map, compute_map, no_recycling, r#impl = None))]
    fn make_thunk<'py>(
        slf: &Bound<'py, Self>,
        node: Bound<'py, PyAny>,
        storage_map: Bound<'py, PyAny>,
        compute_map: Bound<'py, PyAny>,
        no_recycling: Bound<'py, PyAny>,
        r#impl: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let impl_ = r#impl.unwrap_or_else(|| PyString::new(slf.py(), "py").into_any());
        slf.call_method1("prepare_node", (&node, &storage_map, &compute_map, impl_))?;
        Ok(slf
            .call_method1(
                "make_py_thunk",
                (node, storage_map, compute_map, no_recycling),
            )?
            .into_any())
    }

    /// `infer_shape(fgraph, node, input_shapes)` (or PyTensor 3.x's
    /// `(node, input_shapes)`) of a built-in op, from its core rule. Ops
    /// written in Python define their own or have none, as in PyTensor.
    #[getter]
    fn infer_shape<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        if slf.borrow().core.is_none() {
            return Err(crate::ops::infer_shape::missing(slf.as_any()));
        }
        crate::ops::infer_shape::bound_method(slf.as_any())
    }

    /// The seeds' gradient method. Ops override it (or `L_op`/`pullback`);
    /// the base forwards to an overridden `pullback`/`L_op`, else raises
    /// `NotImplementedError`: a missing gradient is taken as forgotten.
    fn grad<'py>(
        slf: &Bound<'py, Self>,
        inputs: Bound<'py, PyAny>,
        output_grads: Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        for method in ["pullback", "L_op"] {
            if overrides(slf.as_any(), method)? {
                let outputs = call_with_list(slf.as_any(), &inputs)?;
                return slf.call_method1(method, (inputs, outputs, output_grads));
            }
        }
        Err(PyNotImplementedError::new_err(format!(
            "grad not implemented for Op {}",
            op_str(slf.as_any())?
        )))
    }

    /// `L_op(inputs, outputs, output_grads)`: `pullback` if overridden, else `grad`.
    #[allow(non_snake_case)]
    fn L_op<'py>(
        slf: &Bound<'py, Self>,
        inputs: Bound<'py, PyAny>,
        outputs: Bound<'py, PyAny>,
        output_grads: Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if overrides(slf.as_any(), "pullback")? {
            return slf.call_method1("pullback", (inputs, outputs, output_grads));
        }
        slf.call_method1("grad", (inputs, output_grads))
    }

    /// PyTensor 3.x's name for the vector-Jacobian product: forwards to an
    /// overridden `L_op` or `grad`.
    fn pullback<'py>(
        slf: &Bound<'py, Self>,
        inputs: Bound<'py, PyAny>,
        outputs: Bound<'py, PyAny>,
        cotangents: Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if overrides(slf.as_any(), "L_op")? {
            return slf.call_method1("L_op", (inputs, outputs, cotangents));
        }
        if overrides(slf.as_any(), "grad")? {
            return slf.call_method1("grad", (inputs, cotangents));
        }
        Err(PyNotImplementedError::new_err(format!(
            "pullback not implemented for {}",
            op_str(slf.as_any())?
        )))
    }

    /// The seeds' R-operator. The base forwards to an overridden `pushforward`.
    #[allow(non_snake_case)]
    fn R_op<'py>(
        slf: &Bound<'py, Self>,
        inputs: Bound<'py, PyAny>,
        eval_points: Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if overrides(slf.as_any(), "pushforward")? {
            let py = slf.py();
            let outputs = call_with_list(slf.as_any(), &inputs)?;
            let disconnected = crate::gradient::types::disconnected_variable(py)?;
            let tangents = PyList::empty(py);
            for p in eval_points.try_iter()? {
                let p = p?;
                tangents.append(if p.is_none() { disconnected.clone() } else { p })?;
            }
            let result = slf.call_method1("pushforward", (inputs, outputs, tangents))?;
            let out = PyList::empty(py);
            for r in result.try_iter()? {
                let r = r?;
                let is_disc = r
                    .getattr("type")?
                    .is_instance_of::<crate::graph::types::PyDisconnectedType>();
                out.append(if is_disc { py.None().into_bound(py) } else { r })?;
            }
            return Ok(out.into_any());
        }
        Err(PyNotImplementedError::new_err(format!(
            "R_op not implemented for Op {}",
            op_str(slf.as_any())?
        )))
    }

    /// PyTensor 3.x's name for the Jacobian-vector product: forwards to an overridden `R_op`.
    fn pushforward<'py>(
        slf: &Bound<'py, Self>,
        inputs: Bound<'py, PyAny>,
        outputs: Bound<'py, PyAny>,
        tangents: Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let _ = outputs;
        if overrides(slf.as_any(), "R_op")? {
            let py = slf.py();
            let points = PyList::empty(py);
            for t in tangents.try_iter()? {
                let t = t?;
                let is_disc = t
                    .getattr("type")?
                    .is_instance_of::<crate::graph::types::PyDisconnectedType>();
                points.append(if is_disc { py.None().into_bound(py) } else { t })?;
            }
            let result = slf.call_method1("R_op", (inputs, points))?;
            let disconnected = crate::gradient::types::disconnected_variable(py)?;
            let out = PyList::empty(py);
            for r in result.try_iter()? {
                let r = r?;
                out.append(if r.is_none() { disconnected.clone() } else { r })?;
            }
            return Ok(out.into_any());
        }
        Err(PyNotImplementedError::new_err(format!(
            "pushforward not implemented for {}",
            op_str(slf.as_any())?
        )))
    }

    /// An inplace version of this op on some of the allowed inputs; the base returns the op itself.
    fn inplace_on_inputs(
        slf: &Bound<'_, Self>,
        allowed_inplace_inputs: Bound<'_, PyAny>,
    ) -> Py<PyAny> {
        let _ = allowed_inplace_inputs;
        slf.clone().into_any().unbind()
    }
}

fn return_list(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("return_list", true)?;
    Ok(d)
}

/// `op(*inputs, return_list=True)`.
fn call_with_list<'py>(
    op: &Bound<'py, PyAny>,
    inputs: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let args = PyTuple::new(op.py(), inputs.try_iter()?.collect::<PyResult<Vec<_>>>()?)?;
    op.call(args, Some(&return_list(op.py())?))
}

/// `__call__`'s own keywords: `name`, `return_list`, and the rest for `make_node`.
type CallKwargs<'py> = (Option<Bound<'py, PyAny>>, bool, Option<Bound<'py, PyDict>>);

/// `name=` and `return_list=` are `__call__`'s; the rest go to `make_node`.
fn split_call_kwargs<'py>(kwargs: Option<&Bound<'py, PyDict>>) -> PyResult<CallKwargs<'py>> {
    let Some(kw) = kwargs else {
        return Ok((None, false, None));
    };
    let rest = kw.copy()?;
    let name = rest.get_item("name")?.filter(|n| !n.is_none());
    let return_list = rest
        .get_item("return_list")?
        .map(|r| r.is_truthy())
        .transpose()?
        .unwrap_or(false);
    let _ = rest.del_item("name");
    let _ = rest.del_item("return_list");
    Ok((name, return_list, (!rest.is_empty()).then_some(rest)))
}

/// `__call__(name=...)`: one output gets the name; else the default output;
/// else each output gets `name_i`.
fn name_outputs(
    outputs: &Bound<'_, PyList>,
    default: &Bound<'_, PyAny>,
    name: &Bound<'_, PyAny>,
) -> PyResult<()> {
    if outputs.len() == 1 {
        return outputs.get_item(0)?.setattr("name", name);
    }
    if !default.is_none() {
        return outputs
            .get_item(default.extract::<usize>()?)?
            .setattr("name", name);
    }
    for (i, out) in outputs.iter().enumerate() {
        out.setattr("name", format!("{name}_{i}"))?;
    }
    Ok(())
}

/// The default `make_node` for ops that declare `itypes` and `otypes`.
fn make_node_from_itypes<'py>(
    op: &Bound<'py, PyAny>,
    inputs: &Bound<'py, PyTuple>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = op.py();
    let (itypes, otypes) = (op.getattr("itypes")?, op.getattr("otypes")?);
    if itypes.is_none() || otypes.is_none() {
        return Err(PyNotImplementedError::new_err(format!(
            "{} must define make_node, or itypes and otypes",
            op.get_type().name()?
        )));
    }
    let itypes: Vec<Bound<'py, PyAny>> = itypes.try_iter()?.collect::<PyResult<_>>()?;
    if itypes.len() != inputs.len() {
        return Err(PyValueError::new_err(format!(
            "We expected {} inputs but got {}.",
            itypes.len(),
            inputs.len()
        )));
    }
    let mut problems = Vec::new();
    for (i, (ity, inp)) in itypes.iter().zip(inputs.iter()).enumerate() {
        let got = inp.getattr("type")?;
        if !ity.call_method1("is_super", (&got,))?.is_truthy()? {
            problems.push(format!(
                " Input {}/{}: Expected {}, got {}",
                i + 1,
                itypes.len(),
                ity.str()?,
                got.str()?
            ));
        }
    }
    if !problems.is_empty() {
        return Err(PyTypeError::new_err(format!(
            "Invalid input types for Op {}:\n{}",
            op_str(op)?,
            problems.join("\n")
        )));
    }
    let outputs = PyList::empty(py);
    for oty in otypes.try_iter()? {
        outputs.append(oty?.call0()?)?;
    }
    let node = PyApply::create(
        py,
        op.clone().unbind(),
        PyList::new(py, inputs.iter())?,
        outputs,
    )?;
    Ok(node.into_any())
}
