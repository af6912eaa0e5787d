//! What a compiled `Function` is made from, kept so it can be pickled: the
//! compiled `FunctionGraph` (givens applied, shared variables as trailing
//! inputs, updates as trailing outputs, constants folded), the inputs'
//! options, the shared variables and the call settings. `oxtensor.function`
//! builds one and compiles it; `Function.__reduce__` pickles it, and
//! loading compiles it again (links the graph for the VM).

use crate::compile::function::{PyFunction, SharedSpec};
use crate::compile::make_maker;
use crate::compile::specs::input_spec_of;
use crate::graph::fgraph::PyFunctionGraph;
use oxtensor_core::vm::{LinkOptions, Program};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use pyo3::{PyTraverseError, PyVisit};
use std::sync::Arc;

/// One explicit input: `(variable, name, strict, allow_downcast)`.
type InputEntry<'py> = (Bound<'py, PyAny>, Option<String>, bool, Option<bool>, bool);

/// `FunctionRecipe(fgraph, inputs, shared, updates, outputs, n_outputs,
/// single, borrow, name, profile, mode)`; see the module docs.
#[pyclass(module = "oxtensor._core", name = "FunctionRecipe", frozen)]
pub struct FunctionRecipe {
    // `Option`s because the GC may visit the object before it is written.
    /// The rewritten graph: explicit inputs, then the shared variables;
    /// outputs, then the update expressions.
    #[pyo3(get)]
    fgraph: Option<Py<PyFunctionGraph>>,
    /// `(variable, name, strict, allow_downcast)` per explicit input.
    inputs: Option<Py<PyList>>,
    /// The shared variables, in the order of the graph's trailing inputs.
    shared: Option<Py<PyList>>,
    /// For each trailing output, the shared variable (index) it updates.
    #[pyo3(get)]
    updates: Vec<usize>,
    /// The outputs as the user gave them (`maker.outputs`).
    outputs: Option<Py<PyList>>,
    /// The number of outputs the caller gets (the rest are updates).
    #[pyo3(get)]
    n_outputs: usize,
    /// Whether the caller gets one value rather than a list.
    #[pyo3(get)]
    single: bool,
    borrow: Vec<bool>,
    /// The function's name, if given.
    #[pyo3(get)]
    name: Option<String>,
    profile: bool,
    /// The mode the function was compiled with, as given (or `None`):
    /// every mode runs the native VM; its checks (DebugMode's, the
    /// view-map check) are linked in.
    #[pyo3(get)]
    mode: Option<Py<PyAny>>,
    /// DebugMode's reference: the same function compiled in `FAST_COMPILE`,
    /// whose results every call is compared with.
    reference: Option<Py<FunctionRecipe>>,
}

fn list<'py>(py: Python<'py>, l: &Option<Py<PyList>>) -> Bound<'py, PyList> {
    l.as_ref()
        .map_or_else(|| PyList::empty(py), |l| l.bind(py).clone())
}

#[pymethods]
impl FunctionRecipe {
    #[new]
    #[pyo3(signature = (fgraph, inputs, shared, updates, outputs, n_outputs, single, borrow, name = None, profile = false, mode = None, reference = None))]
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        fgraph: Py<PyFunctionGraph>,
        inputs: Bound<'_, PyAny>,
        shared: Bound<'_, PyAny>,
        updates: Vec<usize>,
        outputs: Bound<'_, PyAny>,
        n_outputs: usize,
        single: bool,
        borrow: Vec<bool>,
        name: Option<String>,
        profile: bool,
        mode: Option<Py<PyAny>>,
        reference: Option<Py<FunctionRecipe>>,
    ) -> PyResult<Self> {
        let py = inputs.py();
        let as_list = |s: Bound<'_, PyAny>| -> PyResult<Py<PyList>> {
            Ok(PyList::new(py, s.try_iter()?.collect::<PyResult<Vec<_>>>()?)?.unbind())
        };
        Ok(FunctionRecipe {
            fgraph: Some(fgraph),
            inputs: Some(as_list(inputs)?),
            shared: Some(as_list(shared)?),
            updates,
            outputs: Some(as_list(outputs)?),
            n_outputs,
            single,
            borrow,
            name,
            profile,
            mode: mode.filter(|m| !m.is_none(py)),
            reference,
        })
    }

    /// Links the graph and returns a new `Function` over it (a panic is
    /// an `InternalError`, see `errors/panics.rs`).
    #[pyo3(signature = (trust_input = false))]
    pub fn compile(slf: &Bound<'_, Self>, trust_input: bool) -> PyResult<PyFunction> {
        crate::errors::panics::guard(|| Self::build(slf, trust_input, None))
    }

    /// `(variable, name, strict, allow_downcast)` per explicit input.
    #[getter]
    fn inputs<'py>(&self, py: Python<'py>) -> Bound<'py, PyList> {
        list(py, &self.inputs)
    }

    /// The shared variables, in the order of the graph's trailing inputs.
    #[getter]
    fn shared<'py>(&self, py: Python<'py>) -> Bound<'py, PyList> {
        list(py, &self.shared)
    }

    /// `(FunctionRecipe, (fields...))`.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let r = slf.get();
        let fields = (
            r.fgraph.as_ref().map(|f| f.clone_ref(py)),
            list(py, &r.inputs),
            list(py, &r.shared),
            r.updates.clone(),
            list(py, &r.outputs),
            r.n_outputs,
            r.single,
            r.borrow.clone(),
            r.name.clone(),
            r.profile,
            r.mode.as_ref().map(|m| m.clone_ref(py)),
            r.reference.as_ref().map(|f| f.clone_ref(py)),
        );
        (slf.get_type(), fields).into_pyobject(py)
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.fgraph)?;
        visit.call(&self.inputs)?;
        visit.call(&self.shared)?;
        visit.call(&self.outputs)?;
        visit.call(&self.mode)?;
        visit.call(&self.reference)
    }
}

impl FunctionRecipe {
    /// A `Function` over this recipe, running `program` when given (a
    /// copy sharing its original's memory) or a newly linked one.
    pub fn build(
        slf: &Bound<'_, Self>,
        trust_input: bool,
        program: Option<Arc<Program>>,
    ) -> PyResult<PyFunction> {
        let py = slf.py();
        let r = slf.get();
        let fg = r
            .fgraph
            .as_ref()
            .ok_or_else(|| PyValueError::new_err("FunctionRecipe without a graph"))?
            .bind(py);
        let program = match program {
            Some(p) => p,
            None => Arc::new(r.link(py, fg, trust_input)?),
        };
        let specs = list(py, &r.inputs)
            .iter()
            .map(|e| {
                let (var, name, strict, allow_downcast, borrow): InputEntry<'_> = e.extract()?;
                let mut spec = input_spec_of(var, name, strict, allow_downcast)?;
                spec.borrow = borrow;
                Ok(spec)
            })
            .collect::<PyResult<Vec<_>>>()?;
        let shared = list(py, &r.shared)
            .iter()
            .map(|s| {
                Ok(SharedSpec {
                    ty: s.getattr("type")?.unbind(),
                    var: s.unbind(),
                })
            })
            .collect::<PyResult<Vec<_>>>()?;
        let outputs: Vec<Bound<'_, PyAny>> = list(py, &r.outputs).iter().collect();
        // PyTensor names the compiled graph after its function.
        fg.setattr("name", r.name.clone())?;
        let maker = make_maker(
            py,
            fg,
            &specs,
            &shared,
            &r.updates,
            &outputs,
            r.mode.as_ref(),
        )?;
        let scalar_outputs = outputs
            .iter()
            .map(|o| {
                Ok(o.getattr("type")?
                    .is_instance_of::<crate::graph::types::PyScalarType>())
            })
            .collect::<PyResult<Vec<bool>>>()?;
        let constant_outputs = borrowed_constants(fg, &r.borrow)?;
        Ok(PyFunction {
            program,
            inputs: specs,
            shared,
            vectorcall: crate::compile::vectorcall::call,
            updates: r.updates.clone(),
            n_outputs: r.n_outputs,
            single: r.single,
            borrow: r.borrow.clone(),
            scalar_outputs,
            constant_outputs,
            name: r.name.clone(),
            trust_input,
            maker,
            recipe: slf.clone().unbind(),
        })
    }

    /// This recipe with other shared variables (same order), without the
    /// updates when `delete_updates`, another name, and profiling set when
    /// `profile` is given (`Function.copy`).
    pub fn variant(
        &self,
        py: Python<'_>,
        shared: Vec<Bound<'_, PyAny>>,
        delete_updates: bool,
        name: Option<String>,
        profile: Option<bool>,
    ) -> PyResult<FunctionRecipe> {
        let copy = |l: &Option<Py<PyList>>| Some(list(py, l).unbind());
        Ok(FunctionRecipe {
            fgraph: self.fgraph.as_ref().map(|f| f.clone_ref(py)),
            inputs: copy(&self.inputs),
            shared: Some(PyList::new(py, shared)?.unbind()),
            // The graph still computes the update expressions (trailing
            // outputs); with no entries here none is applied.
            updates: if delete_updates {
                Vec::new()
            } else {
                self.updates.clone()
            },
            outputs: copy(&self.outputs),
            n_outputs: self.n_outputs,
            single: self.single,
            borrow: self.borrow.clone(),
            name,
            profile: profile.unwrap_or(self.profile),
            mode: self.mode.as_ref().map(|m| m.clone_ref(py)),
            reference: self.reference.as_ref().map(|f| f.clone_ref(py)),
        })
    }

    /// Links the graph, with the mode's checks (and DebugMode's reference
    /// program) when it has them.
    fn link(
        &self,
        py: Python<'_>,
        fg: &Bound<'_, PyFunctionGraph>,
        trust_input: bool,
    ) -> PyResult<Program> {
        let checker = match &self.mode {
            Some(m) => {
                crate::compile::mode::core_mode(Some(m.bind(py)))?
                    .link
                    .checker
            }
            None => None,
        };
        let mut program = fg.borrow().link(
            py,
            &LinkOptions {
                profile: self.profile,
                checker,
                ..LinkOptions::default()
            },
        )?;
        if let Some(r) = &self.reference {
            let f = FunctionRecipe::build(r.bind(py), trust_input, None)?;
            program.set_reference(f.program.clone());
            if let Some(w) = crate::compile::debug_mode::link_witness(py, &fg.borrow())? {
                program.set_witness(w);
            }
        }
        Ok(program)
    }
}

/// The recipe entry of an explicit input.
pub fn input_entry<'py>(
    py: Python<'py>,
    var: &Py<PyAny>,
    name: &Option<String>,
    strict: bool,
    allow_downcast: Option<bool>,
    borrow: bool,
) -> PyResult<Bound<'py, PyTuple>> {
    (
        var.clone_ref(py),
        name.clone(),
        strict,
        allow_downcast,
        borrow,
    )
        .into_pyobject(py)
}

/// For each output of `fg`, the `data` of a borrowed output that is a
/// constant: PyTensor returns the constant's own array from such an output
/// (its `ViewOp` of the constant), the same object on every call.
fn borrowed_constants(
    fg: &Bound<'_, PyFunctionGraph>,
    borrow: &[bool],
) -> PyResult<Vec<Option<Py<PyAny>>>> {
    let py = fg.py();
    let constant = py.import("oxtensor.graph.basic")?.getattr("Constant")?;
    let outputs = fg.getattr("outputs")?;
    borrow
        .iter()
        .enumerate()
        .map(|(k, &b)| {
            let out = outputs.get_item(k)?;
            Ok(if b && out.is_instance(&constant)? {
                Some(out.getattr("data")?.unbind())
            } else {
                None
            })
        })
        .collect()
}
