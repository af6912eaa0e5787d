//! Scalar ops as Python classes named as in PyTensor (`Add`, `Mul`,
//! `TrueDiv`, `Exp`, ..., `Cast`), one shared instance per kind, as
//! `Elemwise.scalar_op` exposes them.

use crate::op::PyOp;
use crate::types::parse_dtype;
use oxtensor_core::scalar::{ScalarKind, ScalarOp};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple};
use std::collections::HashMap;
use std::sync::Mutex;

/// `oxtensor.scalar.basic.ScalarOp`: the base of the scalar op classes.
#[pyclass(extends = PyOp, subclass, module = "oxtensor.scalar.basic", name = "ScalarOp")]
pub struct PyScalarOp {
    /// The core scalar op.
    pub op: ScalarOp,
}

impl PyScalarOp {
    fn init(op: ScalarOp) -> PyClassInitializer<PyScalarOp> {
        PyClassInitializer::from(PyOp { core: None }).add_subclass(PyScalarOp { op })
    }
}

#[pymethods]
impl PyScalarOp {
    /// The instance name, e.g. `add` or `maximum` (the `str` may be the
    /// class name instead, as in PyTensor: `Maximum`).
    #[getter]
    fn name(&self) -> String {
        match &self.op {
            ScalarOp::Kind(k) => k.name().to_string(),
            ScalarOp::Cast(_) | ScalarOp::Composite(_) => self.op.to_string(),
        }
    }

    /// Number of inputs (`-1`: any number).
    #[getter]
    fn nin(&self) -> i64 {
        self.op.nin().map_or(-1, |n| n as i64)
    }

    /// Number of outputs.
    #[getter]
    fn nout(&self) -> usize {
        self.op.nout()
    }

    /// Whether inputs may be swapped.
    #[getter]
    fn commutative(&self) -> bool {
        matches!(self.op, ScalarOp::Kind(k) if k.commutative())
    }

    /// Whether the op is associative (those that take any number of inputs).
    #[getter]
    fn associative(&self) -> bool {
        self.op.nin().is_none()
    }

    /// The output dtype for these input dtypes.
    #[pyo3(signature = (*dtypes))]
    fn output_dtype(&self, dtypes: &Bound<'_, PyTuple>) -> PyResult<String> {
        let dtypes = dtypes
            .iter()
            .map(|d| parse_dtype(&d))
            .collect::<PyResult<Vec<_>>>()?;
        Ok(self
            .op
            .output_dtype(&dtypes)
            .map_err(crate::errors::to_pyerr)?
            .to_string())
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyScalarOp>()
            .is_ok_and(|o| o.borrow().op == self.op)
    }

    fn __hash__(&self) -> u64 {
        oxtensor_core::ops::props_hash(&self.op)
    }

    fn __str__(&self) -> String {
        self.op.to_string()
    }

    fn __repr__(&self) -> String {
        self.op.to_string()
    }

    /// A kind reloads as its shared instance (`scalar_op("add")`); a cast,
    /// or a subclass defined in Python, through its class.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let op = slf.borrow().op.clone();
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
                PyTuple::new(py, [crate::composite_pickle::composite_state(py, &c)?])?,
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

macro_rules! scalar_classes {
    ($($rs:ident => $kind:ident, $pyname:literal;)*) => {
        $(
            #[doc = concat!("The `", $pyname, "` scalar op.")]
            #[pyclass(extends = PyScalarOp, subclass, module = "oxtensor.scalar.basic", name = $pyname)]
            pub struct $rs;

            #[pymethods]
            impl $rs {
                #[new]
                #[pyo3(signature = (*_args, **_kwargs))]
                fn new(_args: &Bound<'_, PyTuple>, _kwargs: Option<&Bound<'_, PyDict>>) -> PyClassInitializer<Self> {
                    PyScalarOp::init(ScalarOp::Kind(ScalarKind::$kind)).add_subclass($rs)
                }
            }
        )*

        /// A new Python object for a scalar op.
        fn create(py: Python<'_>, op: ScalarOp) -> PyResult<Py<PyAny>> {
            Ok(match op {
                $(ScalarOp::Kind(ScalarKind::$kind) => {
                    Py::new(py, PyScalarOp::init(op).add_subclass($rs))?.into_any()
                })*
                ScalarOp::Cast(_) => Py::new(py, PyScalarOp::init(op).add_subclass(PyCast))?.into_any(),
                ScalarOp::Composite(_) => {
                    Py::new(py, PyScalarOp::init(op).add_subclass(PyComposite))?.into_any()
                }
            })
        }

        /// Adds every scalar op class to the module.
        pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
            m.add_class::<PyScalarOp>()?;
            m.add_class::<PyCast>()?;
            m.add_class::<PyComposite>()?;
            $(m.add_class::<$rs>()?;)*
            Ok(())
        }
    };
}

scalar_classes! {
    Add => Add, "Add";
    Sub => Sub, "Sub";
    Mul => Mul, "Mul";
    TrueDiv => TrueDiv, "TrueDiv";
    IntDiv => IntDiv, "IntDiv";
    Mod => Mod, "Mod";
    Pow => Pow, "Pow";
    Maximum => Maximum, "Maximum";
    Minimum => Minimum, "Minimum";
    Neg => Neg, "Neg";
    Abs => Abs, "Abs";
    Sign => Sign, "Sign";
    Sqr => Sqr, "Sqr";
    Sqrt => Sqrt, "Sqrt";
    Exp => Exp, "Exp";
    Log => Log, "Log";
    Log1p => Log1p, "Log1p";
    Expm1 => Expm1, "Expm1";
    Sin => Sin, "Sin";
    Cos => Cos, "Cos";
    Tan => Tan, "Tan";
    Tanh => Tanh, "Tanh";
    Sigmoid => Sigmoid, "Sigmoid";
    Softplus => Softplus, "Softplus";
    Reciprocal => Reciprocal, "Reciprocal";
    Floor => Floor, "Floor";
    Ceil => Ceil, "Ceil";
    Lt => Lt, "LT";
    Gt => Gt, "GT";
    Le => Le, "LE";
    Ge => Ge, "GE";
    Eq => Eq, "EQ";
    Neq => Neq, "NEQ";
    IsNan => IsNan, "IsNan";
    IsInf => IsInf, "IsInf";
    And => And, "AND";
    Or => Or, "OR";
    Xor => Xor, "XOR";
    Invert => Invert, "Invert";
    Identity => Identity, "Identity";
    Second => Second, "Second";
    Switch => Switch, "Switch";
    Exp2 => Exp2, "Exp2";
    Log2 => Log2, "Log2";
    Log10 => Log10, "Log10";
    RoundHalfToEven => RoundHalfToEven, "RoundHalfToEven";
    RoundHalfAwayFromZero => RoundHalfAwayFromZero, "RoundHalfAwayFromZero";
    Trunc => Trunc, "Trunc";
    ArcSin => ArcSin, "ArcSin";
    ArcCos => ArcCos, "ArcCos";
    ArcTan => ArcTan, "ArcTan";
    ArcTan2 => ArcTan2, "ArcTan2";
    Sinh => Sinh, "Sinh";
    Cosh => Cosh, "Cosh";
    ArcSinh => ArcSinh, "ArcSinh";
    ArcCosh => ArcCosh, "ArcCosh";
    ArcTanh => ArcTanh, "ArcTanh";
    Deg2Rad => Deg2Rad, "Deg2Rad";
    Rad2Deg => Rad2Deg, "Rad2Deg";
    Log1mexp => Log1mexp, "Log1mexp";
    Erf => Erf, "Erf";
    Erfc => Erfc, "Erfc";
    Erfcx => Erfcx, "Erfcx";
    Erfinv => Erfinv, "Erfinv";
    Erfcinv => Erfcinv, "Erfcinv";
    Gamma => Gamma, "Gamma";
    GammaLn => GammaLn, "GammaLn";
    Psi => Psi, "Psi";
    TriGamma => TriGamma, "TriGamma";
    Clip => Clip, "Clip";
    Real => Real, "Real";
    Imag => Imag, "Imag";
    Conj => Conj, "Conj";
    Angle => Angle, "Angle";
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
            ScalarOp::Cast(d) => d.to_string(),
            ScalarOp::Kind(k) => k.name().to_string(),
            ScalarOp::Composite(c) => c.to_string(),
        }
    }
}

/// `Composite{...}`: a scalar graph run as one op, made by the fusion
/// rewrite (`oxtensor.scalar.basic.Composite`; it has no Python
/// constructor yet).
#[pyclass(extends = PyScalarOp, subclass, module = "oxtensor.scalar.basic", name = "Composite")]
pub struct PyComposite;

static INSTANCES: PyOnceLock<Mutex<HashMap<ScalarOp, Py<PyAny>>>> = PyOnceLock::new();

/// The shared Python instance of a scalar op.
pub fn instance(py: Python<'_>, op: ScalarOp) -> PyResult<Py<PyAny>> {
    if let ScalarOp::Composite(_) = op {
        // One per fused node: kept in the cache they would outlive it.
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
