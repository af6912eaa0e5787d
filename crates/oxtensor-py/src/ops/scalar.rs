//! Scalar ops as Python classes named as in PyTensor (`Add`, `Mul`,
//! `TrueDiv`, `Exp`, ..., `Cast`), one shared instance per kind, as
//! `Elemwise.scalar_op` exposes them. The kinds' classes are made from the
//! scalar table (`oxtensor_core::scalar`) when the module loads, so a new
//! kind needs nothing here.

use crate::errors::IntoPyResult;
use crate::graph::fgraph::PyFunctionGraph;
use crate::graph::types::parse_dtype;
use crate::ops::op::PyOp;
use crate::ops::scalar_host;
use oxtensor_core::ops::OpRef;
use oxtensor_core::scalar::composite::Composite;
use oxtensor_core::scalar::{ScalarKind, ScalarOp};
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple, PyType};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// `oxtensor.scalar.basic.ScalarOp`: the base of the scalar op classes.
#[pyclass(extends = PyOp, subclass, module = "oxtensor.scalar.basic", name = "ScalarOp")]
pub struct PyScalarOp {
    /// The core scalar op; `None` for a scalar op written in Python (a
    /// subclass with `impl`, run by `ops/scalar_host.rs`).
    pub op: Option<ScalarOp>,
}

impl PyScalarOp {
    /// The core scalar op is also the Python op's core op: on scalar
    /// variables a scalar op is a graph op (`add(x, y)`).
    pub(crate) fn init(op: ScalarOp) -> PyClassInitializer<PyScalarOp> {
        PyOp::builtin(Arc::new(op.clone())).add_subclass(PyScalarOp { op: Some(op) })
    }

    /// The core scalar op, or a `TypeError` for one written in Python.
    pub fn core_op(&self) -> PyResult<&ScalarOp> {
        self.op.as_ref().ok_or_else(|| {
            PyTypeError::new_err("a scalar op written in Python has no core scalar op")
        })
    }
}

#[pymethods]
impl PyScalarOp {
    /// The op of the class's kind (`Add()` is `add`'s op); `ScalarOp`
    /// itself has no constructor.
    #[new]
    #[classmethod]
    #[pyo3(signature = (*_args, **_kwargs))]
    fn new(
        cls: &Bound<'_, PyType>,
        _args: &Bound<'_, PyTuple>,
        _kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<PyClassInitializer<Self>> {
        from_class(cls)
    }

    /// The instance name, e.g. `add` or `maximum` (the `str` may be the
    /// class name instead, as in PyTensor: `Maximum`).
    #[getter]
    fn name(slf: &Bound<'_, Self>) -> PyResult<String> {
        Ok(match &slf.borrow().op {
            Some(ScalarOp::Kind(k)) => k.name().to_string(),
            Some(op) => op.to_string(),
            None => scalar_host::name(slf.as_any())?,
        })
    }

    /// A scalar op written in Python may name itself (PyTensor's
    /// `ScalarOp.__init__(name=...)`).
    #[setter]
    fn set_name(slf: &Bound<'_, Self>, name: Bound<'_, PyAny>) -> PyResult<()> {
        scalar_host::set_name(slf.as_any(), slf.borrow().op.is_none(), name)
    }

    /// The node of this op on scalars (numbers and 0-d tensors converted
    /// by `as_scalar`).
    #[pyo3(signature = (*inputs))]
    fn make_node<'py>(
        slf: &Bound<'py, Self>,
        inputs: &Bound<'py, PyTuple>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let Some(op) = slf.borrow().op.clone() else {
            return scalar_host::make_node(slf.as_any(), inputs);
        };
        let core: OpRef = Arc::new(op);
        crate::ops::scalar_node::scalar_op_node(slf.as_any(), &core, inputs)
    }

    /// A scalar op written in Python computes its node with `impl`.
    fn perform(
        slf: &Bound<'_, Self>,
        node: Bound<'_, PyAny>,
        inputs: Bound<'_, PyAny>,
        output_storage: Bound<'_, PyAny>,
    ) -> PyResult<()> {
        scalar_host::perform(
            slf.as_any(),
            slf.borrow().op.is_none(),
            node,
            inputs,
            output_storage,
        )
    }

    /// Number of inputs (`-1`: any number).
    #[getter]
    fn nin(&self) -> i64 {
        self.op
            .as_ref()
            .and_then(ScalarOp::nin)
            .map_or(-1, |n| n as i64)
    }

    /// Number of outputs.
    #[getter]
    fn nout(&self) -> usize {
        self.op.as_ref().map_or(1, ScalarOp::nout)
    }

    /// Whether inputs may be swapped.
    #[getter]
    fn commutative(&self) -> bool {
        matches!(self.op, Some(ScalarOp::Kind(k)) if k.commutative())
    }

    /// Whether the op is associative (those that take any number of inputs).
    #[getter]
    fn associative(&self) -> bool {
        self.op.as_ref().is_some_and(|op| op.nin().is_none())
    }

    /// The output dtype for these input dtypes.
    #[pyo3(signature = (*dtypes))]
    fn output_dtype(&self, dtypes: &Bound<'_, PyTuple>) -> PyResult<String> {
        let dtypes = dtypes
            .iter()
            .map(|d| parse_dtype(&d))
            .collect::<PyResult<Vec<_>>>()?;
        Ok(self
            .core_op()?
            .output_dtype(&dtypes)
            .map_err(crate::errors::to_pyerr)?
            .to_string())
    }

    fn __eq__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let Some(op) = &slf.borrow().op else {
            return scalar_host::eq(slf.as_any(), other);
        };
        Ok(other
            .cast::<PyScalarOp>()
            .is_ok_and(|o| o.borrow().op.as_ref() == Some(op)))
    }

    fn __hash__(slf: &Bound<'_, Self>) -> PyResult<u64> {
        match &slf.borrow().op {
            Some(op) => Ok(oxtensor_core::ops::props_hash(op)),
            None => scalar_host::hash(slf.as_any()),
        }
    }

    fn __str__(slf: &Bound<'_, Self>) -> PyResult<String> {
        match &slf.borrow().op {
            Some(op) => Ok(op.to_string()),
            None => scalar_host::name(slf.as_any()),
        }
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        Self::__str__(slf)
    }

    /// A kind reloads as its shared instance (`scalar_op("add")`); a cast,
    /// or a subclass defined in Python, through its class.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let Some(op) = slf.borrow().op.clone() else {
            return scalar_host::reduce(slf.as_any());
        };
        let shared = instance(py, op.clone())?;
        let (func, args) = match op {
            ScalarOp::Kind(k) if shared.bind(py).get_type().is(slf.get_type()) => (
                py.import("oxtensor._core")?.getattr("scalar_op")?,
                PyTuple::new(py, [k.name()])?,
            ),
            ScalarOp::Kind(_) => (slf.get_type().into_any(), PyTuple::empty(py)),
            ScalarOp::Cast(d) => (slf.get_type().into_any(), PyTuple::new(py, [d.name()])?),
            // Fusion makes composites in compiled graphs, which pickle as
            // the graph they were compiled from.
            ScalarOp::Composite(c) => (
                py.import("oxtensor._core")?
                    .getattr("composite_from_state")?,
                PyTuple::new(py, [crate::pickle::composite::composite_state(py, &c)?])?,
            ),
            ScalarOp::Loop(l) => (
                py.import("oxtensor._core")?
                    .getattr("scalar_loop_from_state")?,
                PyTuple::new(py, [crate::pickle::composite::loop_state(py, &l)?])?,
            ),
        };
        let state = slf
            .getattr("__dict__")
            .ok()
            .filter(|d| d.is_truthy().unwrap_or(false))
            .unwrap_or_else(|| py.None().into_bound(py));
        PyTuple::new(py, [func, args.into_any(), state])
    }
}

/// A scalar op of the table made from its class (`Add()`): the class
/// names its kind in `_scalar_kind`, set when the class was made from the
/// table ([`register`]), and inherited by Python subclasses.
fn from_class(cls: &Bound<'_, PyType>) -> PyResult<PyClassInitializer<PyScalarOp>> {
    let name: Option<String> = cls
        .getattr("_scalar_kind")
        .ok()
        .map(|n| n.extract())
        .transpose()?;
    let kind = name.and_then(|n| ScalarKind::ALL.iter().find(|k| k.name() == n));
    match kind {
        Some(k) => Ok(PyScalarOp::init(ScalarOp::Kind(*k))),
        // A subclass written in Python (`impl`, `output_types_preference`).
        None if !cls.is(cls.py().get_type::<PyScalarOp>()) => {
            Ok(PyClassInitializer::from(PyOp { core: None }).add_subclass(PyScalarOp { op: None }))
        }
        None => Err(PyTypeError::new_err(format!(
            "No constructor defined for {}",
            cls.name()?
        ))),
    }
}

/// One Python class per kind of the scalar table (`Add`, `Log1p`, ...),
/// subclasses of `ScalarOp` made when the module loads.
static CLASSES: PyOnceLock<HashMap<ScalarKind, Py<PyType>>> = PyOnceLock::new();

/// The class of `kind`, made with the others on first use.
fn class_of(py: Python<'_>, kind: ScalarKind) -> PyResult<Bound<'_, PyType>> {
    let classes = CLASSES.get_or_try_init(py, || make_classes(py))?;
    classes
        .get(&kind)
        .map(|c| c.bind(py).clone())
        .ok_or_else(|| PyRuntimeError::new_err(format!("no class for {}", kind.name())))
}

/// `type(class_name, (ScalarOp,), {...})` for every kind, under PyTensor's
/// module path (`oxtensor.scalar.basic`, where pickle finds them).
fn make_classes(py: Python<'_>) -> PyResult<HashMap<ScalarKind, Py<PyType>>> {
    let base = py.get_type::<PyScalarOp>();
    let make = py.import("builtins")?.getattr("type")?;
    let mut classes = HashMap::new();
    for &kind in ScalarKind::ALL {
        let attrs = PyDict::new(py);
        attrs.set_item("_scalar_kind", kind.name())?;
        attrs.set_item("__module__", "oxtensor.scalar.basic")?;
        attrs.set_item("__doc__", format!("The `{}` scalar op.", kind.class_name()))?;
        attrs.set_item("__slots__", PyTuple::empty(py))?;
        let bases = PyTuple::new(py, [&base])?;
        let cls = make.call1((kind.class_name(), bases, attrs))?;
        classes.insert(kind, cls.cast_into::<PyType>()?.unbind());
    }
    Ok(classes)
}

/// A new Python object for a scalar op.
fn create(py: Python<'_>, op: ScalarOp) -> PyResult<Py<PyAny>> {
    Ok(match op {
        ScalarOp::Kind(k) => class_of(py, k)?.call0()?.unbind(),
        ScalarOp::Cast(_) => Py::new(py, PyScalarOp::init(op).add_subclass(PyCast))?.into_any(),
        ScalarOp::Composite(_) => Py::new(
            py,
            PyScalarOp::init(op).add_subclass(PyComposite::default()),
        )?
        .into_any(),
        ScalarOp::Loop(_) => crate::ops::scalar_loop::create(py, op)?,
    })
}

/// Adds the scalar op base classes to the module and makes the classes of
/// the table's kinds (reached through [`scalar_kinds`], not module
/// attributes: `oxtensor.scalar` holds them).
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyScalarOp>()?;
    m.add_class::<PyCast>()?;
    m.add_class::<PyComposite>()?;
    m.add_class::<crate::ops::scalar_loop::PyScalarLoop>()?;
    class_of(m.py(), ScalarKind::Add)?;
    Ok(())
}

/// `oxtensor._core.scalar_kinds()`: the scalar table, one tuple per kind:
/// `(class, shared instance, module attribute name, special, method,
/// fused)`; `special` marks PyTensor's `scalar/math.py` ops, `method` the
/// one-argument `TensorVariable` methods (`x.exp()`), `fused` the kinds
/// elementwise fusion puts in a `Composite`.
#[pyfunction]
pub fn scalar_kinds(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyTuple>>> {
    ScalarKind::ALL
        .iter()
        .map(|&k| {
            let cls = class_of(py, k)?.into_any();
            let op = instance(py, ScalarOp::Kind(k))?.into_bound(py);
            let attr = k.attr_name().into_pyobject(py)?.into_any();
            let special = k.is_special().into_pyobject(py)?.to_owned().into_any();
            let method = k.is_method().into_pyobject(py)?.to_owned().into_any();
            let fused = k.fused().into_pyobject(py)?.to_owned().into_any();
            PyTuple::new(py, [cls, op, attr, special, method, fused])
        })
        .collect()
}

/// `Cast{dtype}`: conversion to a dtype.
#[pyclass(extends = PyScalarOp, subclass, module = "oxtensor.scalar.basic", name = "Cast")]
pub struct PyCast;

#[pymethods]
impl PyCast {
    #[new]
    fn new(dtype: Bound<'_, PyAny>) -> PyResult<PyClassInitializer<Self>> {
        Ok(PyScalarOp::init(ScalarOp::Cast(parse_dtype(&dtype)?)).add_subclass(PyCast))
    }

    /// The target dtype.
    #[getter]
    fn o_dtype(slf: PyRef<'_, Self>) -> String {
        match &slf.as_super().op {
            Some(ScalarOp::Cast(d)) => d.to_string(),
            Some(op) => op.to_string(),
            None => String::new(),
        }
    }
}

/// `Composite{...}`: a scalar graph run as one op, made by the fusion
/// rewrite or from Python: `Composite([x, y], [x + y])` of scalar variables.
#[pyclass(extends = PyScalarOp, subclass, module = "oxtensor.scalar.basic", name = "Composite")]
#[derive(Default)]
pub struct PyComposite {
    fgraph: crate::ops::scalar_loop::InnerFgraph,
}

#[pymethods]
impl PyComposite {
    /// The composite computing `outputs` (scalar variables) from `inputs`.
    #[new]
    fn new(
        py: Python<'_>,
        inputs: Bound<'_, PyAny>,
        outputs: Bound<'_, PyAny>,
    ) -> PyResult<PyClassInitializer<Self>> {
        let fg = py
            .get_type::<PyFunctionGraph>()
            .call1((inputs, outputs))?
            .cast_into::<PyFunctionGraph>()?;
        let c = Composite::from_fgraph(fg.borrow().core()?).py()?;
        Ok(PyScalarOp::init(ScalarOp::Composite(Arc::new(c))).add_subclass(PyComposite::default()))
    }

    /// The inner scalar graph: inputs `i0, i1, ...`, as `dprint` shows it.
    #[getter]
    fn fgraph<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyFunctionGraph>> {
        let Some(ScalarOp::Composite(c)) = slf.as_super().borrow().op.clone() else {
            return Err(PyTypeError::new_err("not a Composite"));
        };
        slf.borrow().fgraph.get(slf.py(), || c.fgraph())
    }
}

crate::ops::scalar_loop::inner_fgraph_methods!(
    PyComposite,
    "The inner graph's inputs (`i0, i1, ...`).",
    "The inner graph's outputs."
);

static INSTANCES: PyOnceLock<Mutex<HashMap<ScalarOp, Py<PyAny>>>> = PyOnceLock::new();

/// The shared Python instance of a scalar op.
pub fn instance(py: Python<'_>, op: ScalarOp) -> PyResult<Py<PyAny>> {
    if let ScalarOp::Composite(_) | ScalarOp::Loop(_) = op {
        // One per fused node (or loop made): cached, they would outlive it.
        return create(py, op);
    }
    let cache = INSTANCES.get_or_init(py, || Mutex::new(HashMap::new()));
    let mut map = cache
        .lock()
        .map_err(|_| pyo3::exceptions::PyRuntimeError::new_err("scalar op cache poisoned"))?;
    if let Some(o) = map.get(&op) {
        return Ok(o.clone_ref(py));
    }
    let obj = create(py, op.clone())?;
    map.insert(op, obj.clone_ref(py));
    Ok(obj)
}

/// The Python object of a core scalar op (an entry of `ops/classes.rs`).
pub fn object(py: Python<'_>, core: &OpRef) -> PyResult<Py<PyAny>> {
    instance(py, crate::ops::classes::core_op::<ScalarOp>(core)?.clone())
}

/// `oxtensor._core.scalar_op(name)`: the shared instance named `add`, `mul`, ...
#[pyfunction]
pub fn scalar_op(py: Python<'_>, name: &str) -> PyResult<Py<PyAny>> {
    let kind = ScalarKind::ALL
        .iter()
        .find(|k| k.name() == name)
        .ok_or_else(|| {
            let names: Vec<&str> = ScalarKind::ALL.iter().map(|k| k.name()).collect();
            pyo3::exceptions::PyValueError::new_err(format!(
                "unknown scalar op '{name}'; expected one of {}",
                names.join(", ")
            ))
        })?;
    instance(py, ScalarOp::Kind(*kind))
}
