//! `Variable`: a value in a graph (a root, a constant, or a node's output),
//! with identity semantics. Python subclasses (`TensorVariable`, `Constant`,
//! user classes) share this layout.

use crate::graph::apply::PyApply;
use crate::graph::describe::graph_object_methods;
use crate::graph::scratchpad::copy_tag;
use crate::registry;
use pyo3::exceptions::{PyAttributeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};
use pyo3::{PyTraverseError, PyVisit};

/// `oxtensor.graph.basic.Variable(type, owner=None, index=None, name=None)`.
#[pyclass(
    subclass,
    dict,
    weakref,
    module = "oxtensor.graph.basic",
    name = "Variable"
)]
pub struct PyVariable {
    /// The type object. An `Option` because the GC may visit an object
    /// before its fields are written (zeroed memory reads as `None`).
    pub ty: Option<Py<PyAny>>,
    /// The producing `Apply`, if any.
    pub owner: Option<Py<PyAny>>,
    /// Position in the owner's outputs.
    pub index: Option<usize>,
    /// `name` (a `str`) or `None`.
    pub name: Option<Py<PyAny>>,
    /// `tag`, created on first use.
    pub tag: Option<Py<PyAny>>,
    /// A constant's data, as a Python object (for constants made in Rust,
    /// created from `tensor` on first access).
    pub data: Option<Py<PyAny>>,
    /// A constant's value when it was made in Rust: the NumPy view is only
    /// built if Python asks for `data` (most constants never are).
    pub tensor: Option<oxtensor_core::tensor::Tensor>,
    /// Number behind `auto_name`.
    pub auto_id: u64,
    /// Weak reference to the last `FunctionGraph` that imported this variable.
    pub fgraph: Option<Py<PyAny>>,
}

impl PyVariable {
    /// A variable with the given fields and a fresh `auto_name`.
    pub fn with(
        ty: Py<PyAny>,
        owner: Option<Py<PyAny>>,
        index: Option<usize>,
        name: Option<Py<PyAny>>,
    ) -> Self {
        PyVariable {
            ty: Some(ty),
            owner,
            index,
            name,
            tag: None,
            data: None,
            tensor: None,
            auto_id: registry::next_auto_id(),
            fgraph: None,
        }
    }

    /// The type object (`None` only before initialisation).
    pub fn ty<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.ty
            .as_ref()
            .map_or_else(|| py.None().into_bound(py), |t| t.bind(py).clone())
    }

    /// An empty shell for `__new__`. Its `auto_name` number is taken by
    /// `__init__`, so a shell that Rust fills with ready fields (see
    /// `construct::variable_of_class`) does not use up a number: PyTensor's
    /// consecutive `auto_N` for consecutive variables holds.
    pub fn shell() -> Self {
        PyVariable {
            ty: None,
            owner: None,
            index: None,
            name: None,
            tag: None,
            data: None,
            tensor: None,
            auto_id: 0,
            fgraph: None,
        }
    }

    /// Whether this is a constant.
    pub fn is_constant(&self) -> bool {
        self.data.is_some() || self.tensor.is_some()
    }

    /// A constant's data as a Python object, made from `tensor` if needed.
    pub fn data_obj<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        if self.data.is_none() {
            if let Some(t) = &self.tensor {
                self.data = Some(crate::convert::array::array_from_tensor(py, t, false)?.unbind());
            }
        }
        Ok(self.data.as_ref().map(|d| d.bind(py).clone()))
    }

    /// The name as a Rust string, if set.
    pub fn name_str(&self, py: Python<'_>) -> Option<String> {
        self.name.as_ref().map(|n| n.bind(py).to_string())
    }
}

fn check_owner(owner: &Option<Bound<'_, PyAny>>) -> PyResult<()> {
    match owner {
        Some(o) if !o.is_none() && !o.is_instance_of::<PyApply>() => {
            Err(PyTypeError::new_err("owner must be an Apply instance"))
        }
        _ => Ok(()),
    }
}

fn check_name(name: &Option<Bound<'_, PyAny>>) -> PyResult<Option<Py<PyAny>>> {
    match name {
        Some(n) if !n.is_none() => {
            if !n.is_instance_of::<PyString>() {
                return Err(PyTypeError::new_err(format!(
                    "name must be a string, got {}",
                    n.repr()?
                )));
            }
            Ok(Some(n.clone().unbind()))
        }
        _ => Ok(None),
    }
}

#[pymethods]
impl PyVariable {
    /// Any arguments are accepted here; `__init__` reads them, so subclasses
    /// with their own constructor signatures work.
    #[new]
    #[pyo3(signature = (*_args, **_kwargs))]
    fn new(_args: &Bound<'_, PyTuple>, _kwargs: Option<&Bound<'_, PyDict>>) -> Self {
        PyVariable::shell()
    }

    #[pyo3(signature = (r#type, owner = None, index = None, name = None))]
    fn __init__(
        &mut self,
        r#type: Bound<'_, PyAny>,
        owner: Option<Bound<'_, PyAny>>,
        index: Option<Bound<'_, PyAny>>,
        name: Option<Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        check_owner(&owner)?;
        let index = match index {
            Some(i) if !i.is_none() => Some(
                i.extract::<usize>()
                    .map_err(|_| PyTypeError::new_err("index must be an int"))?,
            ),
            _ => None,
        };
        self.name = check_name(&name)?;
        self.ty = Some(r#type.unbind());
        self.owner = owner.filter(|o| !o.is_none()).map(Bound::unbind);
        self.index = index;
        self.auto_id = registry::next_auto_id();
        Ok(())
    }

    /// Initialises a constant: `type.filter(data)`, kept read-only.
    #[pyo3(signature = (r#type, data, name = None))]
    fn _init_constant(
        slf: &Bound<'_, Self>,
        r#type: Bound<'_, PyAny>,
        data: Bound<'_, PyAny>,
        name: Option<Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let filtered = r#type.call_method1("filter", (&data,))?;
        let filtered = crate::convert::constant::freeze(filtered)?;
        let mut v = slf.borrow_mut();
        v.name = check_name(&name)?;
        v.ty = Some(r#type.unbind());
        v.owner = None;
        v.index = None;
        v.data = Some(filtered.unbind());
        v.auto_id = registry::next_auto_id();
        Ok(())
    }

    /// A constant's value (read-only).
    #[getter]
    fn data(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match self.data_obj(py)? {
            Some(d) => Ok(d.unbind()),
            None => Err(PyAttributeError::new_err("only constants have 'data'")),
        }
    }

    /// The variable's `Type`.
    #[getter(r#type)]
    fn get_type(&self, py: Python<'_>) -> Py<PyAny> {
        self.ty(py).unbind()
    }

    #[setter(r#type)]
    fn set_type(&mut self, ty: Py<PyAny>) {
        self.ty = Some(ty);
    }

    /// The `Apply` node that computes this variable, or `None`.
    #[getter]
    fn owner(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        self.owner.as_ref().map(|o| o.clone_ref(py))
    }

    #[setter]
    fn set_owner(slf: &Bound<'_, Self>, owner: Option<Bound<'_, PyAny>>) -> PyResult<()> {
        if slf.borrow().is_constant() && owner.as_ref().is_some_and(|o| !o.is_none()) {
            return Err(PyValueError::new_err(
                "Constants and other atomic variables cannot have an owner",
            ));
        }
        check_owner(&owner)?;
        slf.borrow_mut().owner = owner.filter(|o| !o.is_none()).map(Bound::unbind);
        Ok(())
    }

    /// Position of this variable in `owner.outputs`.
    #[getter]
    fn index(&self) -> Option<usize> {
        self.index
    }

    /// Refused (`ValueError`) unless it is a position of the owner's
    /// outputs (see `graph/apply_edits.rs`).
    #[setter]
    fn set_index(&mut self, index: Option<usize>) -> PyResult<()> {
        crate::graph::apply_edits::check_index(self.owner.as_ref(), index)?;
        self.index = index;
        Ok(())
    }

    /// The name, or `None`.
    #[getter]
    fn name(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        self.name.as_ref().map(|n| n.clone_ref(py))
    }

    #[setter]
    fn set_name(&mut self, name: Option<Bound<'_, PyAny>>) -> PyResult<()> {
        self.name = check_name(&name)?;
        Ok(())
    }

    /// `auto_N`, from a counter shared by all variables.
    #[getter]
    fn auto_name(&self) -> String {
        format!("auto_{}", self.auto_id)
    }

    /// Where this variable is used in the `FunctionGraph` that last imported
    /// it: `(apply, i)` pairs and `("output", i)` entries (the seeds' form).
    #[getter]
    fn clients(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        let fg = Self::fgraph(slf)?;
        if fg.is_none() {
            return Err(PyAttributeError::new_err(
                "'clients' exists only for variables of a FunctionGraph (e.g. after compiling)",
            ));
        }
        Ok(fg.call_method1("get_clients", (slf,))?.unbind())
    }

    /// The `FunctionGraph` that last imported this variable, or `None`.
    #[getter]
    fn fgraph<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let Some(weak) = slf.borrow().fgraph.as_ref().map(|w| w.clone_ref(py)) else {
            return Ok(py.None().into_bound(py));
        };
        weak.bind(py).call0()
    }

    /// A new owner-less variable of the same class, type, name and tag.
    #[pyo3(signature = (**kwargs))]
    fn clone(slf: &Bound<'_, Self>, kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        let this = slf.borrow();
        if this.is_constant() {
            return Ok(slf.clone().into_any().unbind());
        }
        let name = match kwargs.map(|k| k.get_item("name")).transpose()?.flatten() {
            Some(n) => check_name(&Some(n))?,
            None => this.name.as_ref().map(|n| n.clone_ref(py)),
        };
        let mut copy = PyVariable::with(this.ty(py).unbind(), None, None, name);
        copy.tag = copy_tag(py, &this.tag)?;
        drop(this);
        let obj = crate::graph::construct::variable_of_class(py, &slf.get_type(), copy)?;
        if let Ok(d) = slf.getattr("__dict__") {
            let dict = d.cast_into::<PyDict>()?;
            if !dict.is_empty() {
                obj.getattr("__dict__")?.call_method1("update", (dict,))?;
            }
        }
        Ok(obj.unbind())
    }

    /// The owner, as a list (`get_parents`).
    fn get_parents(&self, py: Python<'_>) -> Vec<Py<PyAny>> {
        self.owner.iter().map(|o| o.clone_ref(py)).collect()
    }

    /// The owner's op, or `None`.
    #[getter]
    fn owner_op(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match &self.owner {
            Some(o) => Ok(o.bind(py).getattr("op")?.unbind()),
            None => Ok(py.None()),
        }
    }

    fn __bool__(&self) -> PyResult<bool> {
        Err(PyTypeError::new_err(
            "Variables do not support boolean operations: the value is not known until the graph runs",
        ))
    }

    /// A new variable of the same class with the same fields (owner, tag
    /// and data shared, not copied) and instance attributes.
    fn __copy__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let fields = {
            let this = slf.borrow();
            let share = |o: &Option<Py<PyAny>>| o.as_ref().map(|o| o.clone_ref(py));
            PyVariable {
                ty: share(&this.ty),
                owner: share(&this.owner),
                index: this.index,
                name: share(&this.name),
                tag: share(&this.tag),
                data: share(&this.data),
                tensor: this.tensor.clone(),
                auto_id: this.auto_id,
                fgraph: None,
            }
        };
        let copy = crate::graph::construct::variable_of_class(py, &slf.get_type(), fields)?;
        crate::pickle::graph::copy_instance_dict(slf.as_any(), &copy)?;
        Ok(copy)
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.ty)?;
        for field in [&self.owner, &self.name, &self.tag, &self.data, &self.fgraph] {
            visit.call(field)?;
        }
        Ok(())
    }

    fn __clear__(&mut self) {
        self.owner = None;
        self.tag = None;
        self.data = None;
        self.tensor = None;
        self.fgraph = None;
    }
}

graph_object_methods!(PyVariable, crate::graph::describe::variable_str);
