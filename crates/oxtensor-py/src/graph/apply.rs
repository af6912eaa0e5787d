//! `Apply`: an op applied to input variables, owning its outputs.

use crate::graph::apply_edits::check_types;
use crate::graph::describe::graph_object_methods;
use crate::graph::scratchpad::copy_tag;
use crate::graph::variable::PyVariable;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use pyo3::{PyTraverseError, PyVisit};

/// `oxtensor.graph.basic.Apply(op, inputs, outputs)`.
#[pyclass(
    subclass,
    dict,
    weakref,
    module = "oxtensor.graph.basic",
    name = "Apply"
)]
pub struct PyApply {
    // `Option`s because the GC may visit a node before its fields are
    // written; zeroed memory reads as `None`. Use the accessors below.
    op: Option<Py<PyAny>>,
    inputs: Option<Py<PyList>>,
    outputs: Option<Py<PyList>>,
    /// `tag`, created on first use.
    pub tag: Option<Py<PyAny>>,
}

/// A list of `Variable`s from any sequence, or `TypeError` naming `what`.
fn variable_list<'py>(seq: &Bound<'py, PyAny>, what: &str) -> PyResult<Bound<'py, PyList>> {
    let items = PyList::empty(seq.py());
    let iter = seq.try_iter().map_err(|_| {
        PyTypeError::new_err(format!(
            "The {what} of an Apply must be a list or tuple, got {}",
            seq.repr().map(|r| r.to_string()).unwrap_or_default()
        ))
    })?;
    for (i, item) in iter.enumerate() {
        let item = item?;
        if !item.is_instance_of::<PyVariable>() {
            return Err(PyTypeError::new_err(format!(
                "The {what} of an Apply must be Variables; {what}[{i}] is {} of type {}",
                item.repr()?,
                item.get_type().name()?
            )));
        }
        items.append(item)?;
    }
    Ok(items)
}

/// Makes `node` the owner of each output that has none; refuses outputs
/// that belong to another node.
pub fn adopt_outputs(node: &Bound<'_, PyApply>, outputs: &Bound<'_, PyList>) -> PyResult<()> {
    for (i, out) in outputs.iter().enumerate() {
        let out = out.cast_into::<PyVariable>()?;
        let mut v = out.borrow_mut();
        match &v.owner {
            None => {
                v.owner = Some(node.clone().into_any().unbind());
                v.index = Some(i);
            }
            Some(o) if o.is(node) && v.index == Some(i) => {}
            Some(_) => {
                return Err(PyValueError::new_err(
                    "All output variables passed to Apply must belong to it.",
                ))
            }
        }
    }
    Ok(())
}

impl PyApply {
    /// The op.
    pub fn op_obj<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.op
            .as_ref()
            .map_or_else(|| py.None().into_bound(py), |o| o.bind(py).clone())
    }

    /// The inputs list.
    pub fn inputs_list<'py>(&self, py: Python<'py>) -> Bound<'py, PyList> {
        self.inputs
            .as_ref()
            .map_or_else(|| PyList::empty(py), |l| l.bind(py).clone())
    }

    /// The outputs list.
    pub fn outputs_list<'py>(&self, py: Python<'py>) -> Bound<'py, PyList> {
        self.outputs
            .as_ref()
            .map_or_else(|| PyList::empty(py), |l| l.bind(py).clone())
    }

    /// The output `op.__call__` returns: `op.default_output`, else the only one.
    pub fn default_output_obj(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let outputs = self.outputs_list(py);
        let op = self.op_obj(py);
        let default = op.getattr("default_output").ok().filter(|d| !d.is_none());
        match default {
            Some(d) => {
                // As PyTensor's: an int indexing the outputs (negative from
                // the end), `TypeError` for anything else, `IndexError` out
                // of range.
                let i: isize = d.extract().map_err(|_| {
                    PyTypeError::new_err(format!(
                        "{}.default_output should be an int, got {}",
                        op.str().map(|s| s.to_string()).unwrap_or_default(),
                        d.repr().map(|s| s.to_string()).unwrap_or_default()
                    ))
                })?;
                let n = outputs.len() as isize;
                if i < -n || i >= n {
                    return Err(pyo3::exceptions::PyIndexError::new_err(format!(
                        "{}.default_output {} is out of range [{}, {})",
                        op.str()?,
                        i,
                        -n,
                        n
                    )));
                }
                Ok(outputs.get_item(i.rem_euclid(n) as usize)?.unbind())
            }
            None if outputs.len() == 1 => Ok(outputs.get_item(0)?.unbind()),
            None => Err(PyValueError::new_err(format!(
                "Multi-output Op {} default_output not specified",
                op.str()?
            ))),
        }
    }

    /// Sets every field at once, as unpickling does (no checks, no adoption:
    /// the outputs' own fields are restored alongside).
    pub fn restore(
        &mut self,
        op: Py<PyAny>,
        inputs: Py<PyList>,
        outputs: Py<PyList>,
        tag: Option<Py<PyAny>>,
    ) {
        self.op = Some(op);
        self.inputs = Some(inputs);
        self.outputs = Some(outputs);
        self.tag = tag;
    }

    /// A node built from Rust, outputs adopted.
    pub fn create<'py>(
        py: Python<'py>,
        op: Py<PyAny>,
        inputs: Bound<'py, PyList>,
        outputs: Bound<'py, PyList>,
    ) -> PyResult<Bound<'py, PyApply>> {
        let node = Bound::new(
            py,
            PyApply {
                op: Some(op),
                inputs: Some(inputs.unbind()),
                outputs: Some(outputs.clone().unbind()),
                tag: None,
            },
        )?;
        adopt_outputs(&node, &outputs)?;
        Ok(node)
    }
}

#[pymethods]
impl PyApply {
    #[new]
    #[pyo3(signature = (*_args, **_kwargs))]
    fn new(_args: &Bound<'_, PyTuple>, _kwargs: Option<&Bound<'_, PyDict>>) -> Self {
        PyApply {
            op: None,
            inputs: None,
            outputs: None,
            tag: None,
        }
    }

    fn __init__(
        slf: &Bound<'_, Self>,
        op: Bound<'_, PyAny>,
        inputs: Bound<'_, PyAny>,
        outputs: Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let inputs = variable_list(&inputs, "inputs")?;
        let outputs = variable_list(&outputs, "outputs")?;
        {
            let mut this = slf.borrow_mut();
            this.op = Some(op.unbind());
            this.inputs = Some(inputs.unbind());
            this.outputs = Some(outputs.clone().unbind());
        }
        adopt_outputs(slf, &outputs)
    }

    /// The op.
    #[getter]
    fn op(&self, py: Python<'_>) -> Py<PyAny> {
        self.op_obj(py).unbind()
    }

    #[setter]
    fn set_op(&mut self, op: Py<PyAny>) {
        self.op = Some(op);
    }

    /// The inputs (a list).
    #[getter]
    fn inputs(&self, py: Python<'_>) -> Py<PyList> {
        self.inputs_list(py).unbind()
    }

    /// Refused (`TypeError`) when a built-in op would not give the node's
    /// outputs from these inputs (see `graph/apply_edits.rs`).
    #[setter]
    fn set_inputs(&mut self, inputs: Bound<'_, PyAny>) -> PyResult<()> {
        let py = inputs.py();
        let inputs = variable_list(&inputs, "inputs")?;
        check_types("inputs", &self.op_obj(py), &inputs, &self.outputs_list(py))?;
        self.inputs = Some(inputs.unbind());
        Ok(())
    }

    /// The outputs (a list).
    #[getter]
    fn outputs(&self, py: Python<'_>) -> Py<PyList> {
        self.outputs_list(py).unbind()
    }

    /// Outputs must belong to this node (an output without an owner is
    /// adopted, as `Apply(...)` does) and, for a built-in op, have the
    /// types its inputs give (`ValueError`/`TypeError` otherwise).
    #[setter]
    fn set_outputs(slf: &Bound<'_, Self>, outputs: Bound<'_, PyAny>) -> PyResult<()> {
        let py = slf.py();
        let outputs = variable_list(&outputs, "outputs")?;
        let (op, inputs) = {
            let this = slf.borrow();
            (this.op_obj(py), this.inputs_list(py))
        };
        check_types("outputs", &op, &inputs, &outputs)?;
        adopt_outputs(slf, &outputs)?;
        slf.borrow_mut().outputs = Some(outputs.unbind());
        Ok(())
    }

    /// The output `op.__call__` returns: `op.default_output`, else the only one.
    fn default_output(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.default_output_obj(py)
    }

    /// Alias of `default_output()`.
    #[getter]
    fn out(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.default_output(py)
    }

    /// Number of inputs.
    #[getter]
    fn nin(&self, py: Python<'_>) -> usize {
        self.inputs_list(py).len()
    }

    /// Number of outputs.
    #[getter]
    fn nout(&self, py: Python<'_>) -> usize {
        self.outputs_list(py).len()
    }

    /// The inputs (`get_parents`).
    fn get_parents(&self, py: Python<'_>) -> Py<PyList> {
        self.inputs_list(py).unbind()
    }

    /// A node with the same op and inputs, fresh output clones and a copied
    /// tag; `clone_inner_graph=True` clones an inner-graph op (`op.clone()`).
    #[pyo3(signature = (clone_inner_graph = None))]
    fn clone<'py>(
        slf: &Bound<'py, Self>,
        clone_inner_graph: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let this = slf.borrow();
        let outputs = PyList::empty(py);
        for out in this.outputs_list(py).iter() {
            outputs.append(out.call_method0("clone")?)?;
        }
        let inputs = PyList::new(py, this.inputs_list(py).iter())?;
        let tag = copy_tag(py, &this.tag)?;
        let mut op = this.op_obj(py);
        drop(this);
        // An op with an inner graph gets its own copy of it, as PyTensor's.
        if clone_inner_graph == Some(true) {
            let has_inner = py.import("oxtensor.graph.op")?.getattr("HasInnerGraph")?;
            if op.is_instance(&has_inner)? {
                op = op.call_method0("clone")?;
            }
        }
        let node = slf.get_type().call1((op, inputs, outputs))?;
        if let Some(tag) = tag {
            node.setattr("tag", tag)?;
        }
        Ok(node)
    }

    /// A copy reading `inputs`; with types that differ the op's `make_node`
    /// rebuilds the node (re-inferring output types).
    #[pyo3(signature = (inputs, strict = true))]
    fn clone_with_new_inputs<'py>(
        slf: &Bound<'py, Self>,
        inputs: Bound<'py, PyAny>,
        strict: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        crate::graph::construct::clone_with_new_inputs(slf, inputs, strict)
    }

    /// A new node with the same op, inputs, outputs and tag (new lists).
    fn __copy__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let cls = slf.get_type();
        let copy = cls.call_method1("__new__", (&cls,))?;
        {
            let this = slf.borrow();
            copy.cast::<PyApply>()?.borrow_mut().restore(
                this.op_obj(py).unbind(),
                PyList::new(py, this.inputs_list(py).iter())?.unbind(),
                PyList::new(py, this.outputs_list(py).iter())?.unbind(),
                this.tag.as_ref().map(|t| t.clone_ref(py)),
            );
        }
        crate::pickle::graph::copy_instance_dict(slf.as_any(), &copy)?;
        Ok(copy)
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.op)?;
        visit.call(&self.inputs)?;
        visit.call(&self.outputs)?;
        visit.call(&self.tag)
    }

    fn __clear__(&mut self) {
        self.tag = None;
    }
}

// `op(inputs)`, e.g. `Add(x, ExpandDims{axis=0}.0)`.
graph_object_methods!(PyApply, crate::graph::describe::apply_str);
