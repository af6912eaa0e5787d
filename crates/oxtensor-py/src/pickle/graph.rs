//! Pickling and deep-copying graphs without recursion. A `Variable` or an
//! `Apply` reduces to `operator.getitem(GraphPickle, k)`: the `GraphPickle`
//! lists every object reachable through owners, inputs and outputs, its
//! classes as arguments and its fields as state with integer references, so
//! a 10,000-node chain pickles at constant depth. `pickle/session.rs`
//! decides which objects each `GraphPickle` holds.

use crate::graph::apply::PyApply;
use crate::graph::variable::PyVariable;
use crate::pickle::session::{key, Session};
use pyo3::exceptions::{PyIndexError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{IntoPyDict, PyDict, PyList, PyTuple, PyType};
use pyo3::{PyTraverseError, PyVisit};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// A variable's pickled fields: `(type, owner, index, name, tag, data,
/// auto_id, state)`.
type VariableFields<'py> = (
    Bound<'py, PyAny>,
    Bound<'py, PyAny>,
    Option<usize>,
    Bound<'py, PyAny>,
    Bound<'py, PyAny>,
    Bound<'py, PyAny>,
    u64,
    Bound<'py, PyAny>,
);

/// A node's pickled fields, `(op, inputs, outputs, tag, state)`: all
/// objects, so read back as the array `__reduce__` wrote them from.
type ApplyFields<'py> = [Bound<'py, PyAny>; 5];

/// The flat form of a graph: `GraphPickle(classes)` makes an empty object of
/// each class, `__setstate__` fills their fields, `obj[k]` is object `k`.
#[pyclass(module = "oxtensor._core", name = "GraphPickle", weakref)]
pub struct GraphPickle {
    // An `Option` because the GC may visit the object before it is written.
    objects: Option<Py<PyList>>,
    /// Position of each object, by address.
    position: HashMap<usize, usize>,
    /// Kept so the session lives as long as this snapshot does.
    _session: Option<Arc<Mutex<Session>>>,
}

impl GraphPickle {
    /// Each object's address and position.
    pub fn positions(&self) -> impl Iterator<Item = (&usize, &usize)> {
        self.position.iter()
    }

    pub(crate) fn new_with(
        objects: Bound<'_, PyList>,
        session: Option<Arc<Mutex<Session>>>,
    ) -> Self {
        let position = objects
            .iter()
            .enumerate()
            .map(|(i, o)| (key(&o), i))
            .collect();
        GraphPickle {
            objects: Some(objects.unbind()),
            position,
            _session: session,
        }
    }

    fn objects<'py>(&self, py: Python<'py>) -> Bound<'py, PyList> {
        self.objects
            .as_ref()
            .map_or_else(|| PyList::empty(py), |l| l.bind(py).clone())
    }

    pub(crate) fn get<'py>(&self, py: Python<'py>, k: usize) -> PyResult<Bound<'py, PyAny>> {
        self.objects(py)
            .get_item(k)
            .map_err(|_| PyIndexError::new_err(format!("GraphPickle has no object {k}")))
    }

    /// A reference to `obj` in the state: its position here, else the
    /// object itself (pickled through its own snapshot).
    fn reference<'py>(&self, obj: Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        match self.position.get(&key(&obj)) {
            Some(&i) => Ok(i.into_pyobject(obj.py())?.into_any()),
            None => Ok(obj),
        }
    }

    fn references<'py>(&self, items: &Bound<'py, PyList>) -> PyResult<Bound<'py, PyList>> {
        let refs = items
            .iter()
            .map(|o| self.reference(o))
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(items.py(), refs)
    }

    /// The object a state reference names.
    fn resolve<'py>(&self, py: Python<'py>, r: Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        match r.extract::<usize>() {
            Ok(k) => self.get(py, k),
            Err(_) if r.is_instance_of::<PyVariable>() || r.is_instance_of::<PyApply>() => Ok(r),
            Err(_) => Err(PyTypeError::new_err(format!(
                "GraphPickle: bad reference {}",
                r.repr()?
            ))),
        }
    }

    fn resolve_list<'py>(
        &self,
        py: Python<'py>,
        refs: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let items = refs
            .try_iter()?
            .map(|r| self.resolve(py, r?))
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, items)
    }

    /// A variable's fields: `(type, owner, index, name, tag, data, auto_id,
    /// state)`; `auto_id` keeps `auto_name`, as PyTensor's pickled dict does.
    fn variable_state<'py>(&self, var: &Bound<'py, PyVariable>) -> PyResult<Bound<'py, PyTuple>> {
        let py = var.py();
        // First, while nothing is borrowed: a `__getstate__` may set attributes.
        let state = user_state(var.as_any(), true)?;
        // A constant made in Rust gets its NumPy data now, so it is pickled.
        var.borrow_mut().data_obj(py)?;
        let v = var.borrow();
        let field = |o: &Option<Py<PyAny>>| match o {
            Some(o) => o.bind(py).clone(),
            None => py.None().into_bound(py),
        };
        let owner = match &v.owner {
            Some(o) => self.reference(o.bind(py).clone())?,
            None => py.None().into_bound(py),
        };
        let index = v.index.into_pyobject(py)?.into_any();
        let auto_id = v.auto_id.into_pyobject(py)?.into_any();
        let fields = [
            v.ty(py),
            owner,
            index,
            field(&v.name),
            field(&v.tag),
            field(&v.data),
            auto_id,
            state,
        ];
        PyTuple::new(py, fields)
    }

    /// A node's fields: `(op, inputs, outputs, tag, state)`.
    fn apply_state<'py>(&self, node: &Bound<'py, PyApply>) -> PyResult<Bound<'py, PyTuple>> {
        let py = node.py();
        let state = user_state(node.as_any(), false)?;
        let n = node.borrow();
        let tag = match &n.tag {
            Some(t) => t.bind(py).clone(),
            None => py.None().into_bound(py),
        };
        let inputs = self.references(&n.inputs_list(py))?.into_any();
        let outputs = self.references(&n.outputs_list(py))?.into_any();
        PyTuple::new(py, [n.op_obj(py), inputs, outputs, tag, state])
    }

    fn restore_variable(
        &self,
        var: &Bound<'_, PyVariable>,
        fields: &Bound<'_, PyTuple>,
    ) -> PyResult<()> {
        let py = var.py();
        let (ty, owner, index, name, tag, data, auto_id, state): VariableFields<'_> =
            fields.extract()?;
        let some = |o: Bound<'_, PyAny>| (!o.is_none()).then(|| o.unbind());
        let owner = if owner.is_none() {
            None
        } else {
            Some(self.resolve(py, owner)?.unbind())
        };
        {
            let mut v = var.borrow_mut();
            v.ty = Some(ty.unbind());
            v.owner = owner;
            v.index = index;
            v.name = some(name);
            v.tag = some(tag);
            v.data = some(read_only(data)?);
            v.auto_id = auto_id;
        }
        restore_user_state(var.as_any(), state)
    }

    fn restore_apply(
        &self,
        node: &Bound<'_, PyApply>,
        fields: &Bound<'_, PyTuple>,
    ) -> PyResult<()> {
        let py = node.py();
        let [op, inputs, outputs, tag, state]: ApplyFields<'_> = fields.extract()?;
        let inputs = self.resolve_list(py, &inputs)?;
        let outputs = self.resolve_list(py, &outputs)?;
        let tag = (!tag.is_none()).then(|| tag.unbind());
        node.borrow_mut()
            .restore(op.unbind(), inputs.unbind(), outputs.unbind(), tag);
        restore_user_state(node.as_any(), state)
    }
}

/// The state `copyreg` would save: `__getstate__()` (Python 3.11+) or the
/// instance dict, without a variable's cache of compiled `eval` functions.
fn user_state<'py>(obj: &Bound<'py, PyAny>, variable: bool) -> PyResult<Bound<'py, PyAny>> {
    let py = obj.py();
    let state = match obj.getattr("__getstate__") {
        Ok(f) => f.call0()?,
        Err(_) => obj
            .getattr("__dict__")
            .unwrap_or_else(|_| py.None().into_bound(py)),
    };
    let Ok(dict) = state.cast::<PyDict>() else {
        return Ok(state);
    };
    if variable && dict.contains("_fn_cache")? {
        let copy = dict.copy()?;
        copy.del_item("_fn_cache")?;
        return Ok(copy.into_any());
    }
    Ok(state)
}

/// Applies a saved state as `pickle` would: `__setstate__` if the class has
/// one, else the dict (and `__slots__` values) set on the object.
fn restore_user_state(obj: &Bound<'_, PyAny>, state: Bound<'_, PyAny>) -> PyResult<()> {
    if state.is_none() {
        return Ok(());
    }
    if obj.hasattr("__setstate__")? {
        obj.call_method1("__setstate__", (state,))?;
        return Ok(());
    }
    let (dict, slots) = match state.cast::<PyTuple>() {
        Ok(t) if t.len() == 2 => (t.get_item(0)?, Some(t.get_item(1)?)),
        _ => (state, None),
    };
    if !dict.is_none() {
        obj.getattr("__dict__")?.call_method1("update", (dict,))?;
    }
    if let Some(slots) = slots.filter(|s| !s.is_none()) {
        for (k, v) in slots.cast::<PyDict>()?.iter() {
            obj.setattr(k.str()?, v)?;
        }
    }
    Ok(())
}

/// A constant's data stays read-only (a loaded array is a fresh copy, so
/// it can be marked in place).
fn read_only(data: Bound<'_, PyAny>) -> PyResult<Bound<'_, PyAny>> {
    if data.hasattr("setflags")? {
        data.call_method(
            "setflags",
            (),
            Some(&[("write", false)].into_py_dict(data.py())?),
        )?;
    }
    Ok(data)
}

/// An empty object of `cls`, a `Variable` or `Apply` class (no `__init__`).
fn shell<'py>(cls: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let py = cls.py();
    let cls = cls.cast::<PyType>()?;
    let is_graph_class = cls.is_subclass(&py.get_type::<PyVariable>())?
        || cls.is_subclass(&py.get_type::<PyApply>())?;
    if !is_graph_class {
        return Err(PyTypeError::new_err(format!(
            "GraphPickle: {} is not a Variable or Apply class",
            cls.name()?
        )));
    }
    cls.call_method1("__new__", (cls,))
}

#[pymethods]
impl GraphPickle {
    /// Empty objects of the given classes, filled by `__setstate__`.
    #[new]
    fn new(py: Python<'_>, classes: Bound<'_, PyAny>) -> PyResult<Self> {
        let objects = classes
            .try_iter()?
            .map(|c| shell(&c?))
            .collect::<PyResult<Vec<_>>>()?;
        Ok(GraphPickle::new_with(PyList::new(py, objects)?, None))
    }

    /// Fills the objects: one fields tuple per object, as `__reduce__` made.
    fn __setstate__(&self, py: Python<'_>, state: Bound<'_, PyAny>) -> PyResult<()> {
        let objects = self.objects(py);
        let n = objects.len();
        let states = crate::errors::n_items(&state, n, |got| {
            Ok(format!("GraphPickle: {n} objects but {got} states"))
        })?;
        for (obj, fields) in objects.iter().zip(states) {
            let fields = fields.cast_into::<PyTuple>()?;
            if let Ok(var) = obj.cast::<PyVariable>() {
                self.restore_variable(var, &fields)?;
            } else {
                self.restore_apply(obj.cast::<PyApply>()?, &fields)?;
            }
        }
        Ok(())
    }

    /// `(GraphPickle, (classes,), states)`, read from the objects now.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let objects = self.objects(py);
        let classes = PyTuple::new(py, objects.iter().map(|o| o.get_type()))?;
        let states = objects
            .iter()
            .map(|o| match o.cast::<PyVariable>() {
                Ok(v) => self.variable_state(v),
                Err(_) => self.apply_state(o.cast::<PyApply>()?),
            })
            .collect::<PyResult<Vec<_>>>()?;
        let cls = py.get_type::<GraphPickle>().into_any();
        PyTuple::new(
            py,
            [
                cls,
                PyTuple::new(py, [classes])?.into_any(),
                PyList::new(py, states)?.into_any(),
            ],
        )
    }

    /// Object `k`.
    fn __getitem__<'py>(&self, py: Python<'py>, k: usize) -> PyResult<Bound<'py, PyAny>> {
        self.get(py, k)
    }

    fn __len__(&self, py: Python<'_>) -> usize {
        self.objects(py).len()
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.objects)
    }

    fn __clear__(&mut self) {
        self.objects = None;
    }
}

/// Copies `src`'s instance attributes onto `dst` (a shallow copy's dict).
pub fn copy_instance_dict(src: &Bound<'_, PyAny>, dst: &Bound<'_, PyAny>) -> PyResult<()> {
    if let Ok(d) = src.getattr("__dict__") {
        if d.cast::<PyDict>().is_ok_and(|d| !d.is_empty()) {
            dst.getattr("__dict__")?.call_method1("update", (d,))?;
        }
    }
    Ok(())
}
