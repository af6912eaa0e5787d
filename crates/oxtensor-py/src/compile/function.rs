//! The compiled `Function`: checks and converts the arguments, runs the
//! program with the GIL released, copies any output that would alias an
//! input, a constant or another output, and applies shared updates.

use oxtensor_core::types::TensorType;
use oxtensor_core::value::Value;
use oxtensor_core::vm::Program;
use pyo3::exceptions::PyRecursionError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use pyo3::{PyTraverseError, PyVisit};
use smallvec::SmallVec;
use std::sync::Arc;

/// One explicit input.
pub struct InputSpec {
    /// The variable (in the user's graph).
    pub var: Py<PyAny>,
    /// Its name, for keyword arguments and messages.
    pub name: Option<String>,
    /// Its Python type (for `filter`).
    pub ty: Py<PyAny>,
    /// Its core tensor type, for the fast path.
    pub tensor: Option<TensorType>,
    /// `filter(strict=...)`.
    pub strict: bool,
    /// `filter(allow_downcast=...)`.
    pub allow_downcast: Option<bool>,
    /// `In(borrow=True)`: a borrowed output may alias the argument.
    pub borrow: bool,
}

/// A shared variable the function reads (and maybe updates).
pub struct SharedSpec {
    /// The `SharedVariable`.
    pub var: Py<PyAny>,
    /// Its type.
    pub ty: Py<PyAny>,
}

/// `Function.__reduce__`'s arguments: the recipe and `trust_input`.
type Recipe<'py> = (Bound<'py, crate::compile::recipe::FunctionRecipe>, bool);

/// `oxtensor.compile.function.Function`.
#[pyclass(module = "oxtensor.compile.function", name = "Function", weakref)]
pub struct PyFunction {
    pub(crate) program: Arc<Program>,
    pub(crate) inputs: Vec<InputSpec>,
    pub(crate) shared: Vec<SharedSpec>,
    /// Where calls through vectorcall enter (`compile/vectorcall.rs`); the same
    /// function in every instance, stored where CPython looks for it.
    pub(crate) vectorcall: pyo3::ffi::vectorcallfunc,
    /// For each extra output, the index into `shared` it updates.
    pub(crate) updates: Vec<usize>,
    pub(crate) n_outputs: usize,
    /// Whether a single output is returned as itself, not in a list.
    #[pyo3(get, name = "unpack_single")]
    pub(crate) single: bool,
    pub(crate) borrow: Vec<bool>,
    /// For each output, whether its type is a `ScalarType` (see `output_to_py`).
    pub(crate) scalar_outputs: Vec<bool>,
    /// For each borrowed output that is a constant of the graph, the
    /// constant's own `data`, which every call returns (see `output_to_py`).
    pub(crate) constant_outputs: Vec<Option<Py<PyAny>>>,
    /// The function's name, if given.
    #[pyo3(get)]
    pub(crate) name: Option<String>,
    pub(crate) trust_input: bool,
    pub(crate) maker: Py<PyAny>,
    /// What the function was compiled from, for pickling.
    pub(crate) recipe: Py<crate::compile::recipe::FunctionRecipe>,
}

impl PyFunction {
    /// When compiled under `config.profile_optimizer`, the table of what
    /// the rewrites did (PyTensor's "Rewriter Profile").
    fn rewrite_summary(&self, py: Python<'_>) -> PyResult<Option<String>> {
        let maker = self.maker.bind(py);
        let wanted = maker.getattr_opt("profile_optimizer")?;
        if !wanted.map(|w| w.is_truthy()).transpose()?.unwrap_or(false) {
            return Ok(None);
        }
        let fgraph = maker.getattr("fgraph")?;
        match fgraph.getattr_opt("rewrite_profile")? {
            Some(p) => Ok(Some(p.call_method0("summary")?.extract()?)),
            None => Ok(None),
        }
    }

    /// What every call does first: refuse a call nested so deep (a Python
    /// op calling its own function) that the native stack could overflow,
    /// as `RecursionError`; and, in a forked child, give this thread's
    /// parallel loops live workers before any conversion (see `fork.rs`).
    fn enter(&self) -> PyResult<()> {
        if !oxtensor_core::vm::native_stack::has_room_for_a_call() {
            return Err(PyRecursionError::new_err(format!(
                "maximum recursion depth exceeded while calling {}: calls nested in \
                 Python ops have nearly filled the native stack",
                self.label()
            )));
        }
        oxtensor_core::vm::fork::enter();
        Ok(())
    }

    /// A call with a tuple of positional arguments and maybe keywords.
    pub(crate) fn call(
        &self,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        self.enter()?;
        let mut values = Values::new();
        self.values(args, kwargs, &mut values)?;
        self.finish(args.py(), &values)
    }

    /// A call with exactly one positional argument per input, converted in
    /// order (vectorcall's common case: no tuple, no matching).
    pub(crate) fn call_positional<'py>(
        &self,
        py: Python<'py>,
        args: impl Iterator<Item = Bound<'py, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        self.enter()?;
        let mut values = Values::new();
        for (i, a) in args.enumerate() {
            values.push(self.convert(i, &a)?);
        }
        self.push_shared(py, &mut values)?;
        self.finish(py, &values)
    }
}

/// A call's argument values, inline: a heap vector per call was a
/// measurable part of a small call.
pub(crate) type Values = SmallVec<[Value; 4]>;

#[pymethods]
impl PyFunction {
    /// A call through `tp_call` (a tuple and a dict); most calls come through
    /// `compile/vectorcall.rs` instead, which this enables on the first one.
    #[pyo3(signature = (*args, **kwargs))]
    fn __call__(
        slf: &Bound<'_, Self>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let this = slf.try_borrow()?;
        crate::compile::vectorcall::install(slf, &this.vectorcall);
        this.call(args, kwargs)
    }

    /// The compilation's results: `.fgraph`, `.inputs`, `.outputs`.
    #[getter]
    fn maker(&self, py: Python<'_>) -> Py<PyAny> {
        self.maker.clone_ref(py)
    }

    /// PyTensor's groups of input positions whose arguments may alias each
    /// other: the borrowed (or mutable) inputs, each grouped with those one
    /// of whose types is a supertype of the other's; groups of two or more.
    #[getter]
    fn _potential_aliased_input_groups<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let related = |a: &InputSpec, b: &InputSpec| -> PyResult<bool> {
            if let (Some(x), Some(y)) = (&a.tensor, &b.tensor) {
                return Ok(x.is_super(y) || y.is_super(x));
            }
            let (x, y) = (a.ty.bind(py), b.ty.bind(py));
            Ok(x.call_method1("is_super", (y,))?.is_truthy()?
                || y.call_method1("is_super", (x,))?.is_truthy()?)
        };
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for (i, spec) in self.inputs.iter().enumerate().filter(|(_, s)| s.borrow) {
            let mut home = None;
            for (g, group) in groups.iter().enumerate() {
                for &j in group {
                    if related(spec, &self.inputs[j])? {
                        home = Some(g);
                        break;
                    }
                }
                if home.is_some() {
                    break;
                }
            }
            match home {
                Some(g) => groups[g].push(i),
                None => groups.push(vec![i]),
            }
        }
        let groups = groups
            .into_iter()
            .filter(|g| g.len() > 1)
            .map(|g| PyTuple::new(py, g))
            .collect::<PyResult<Vec<_>>>()?;
        PyTuple::new(py, groups)
    }

    /// Skip checking arguments (they must then be ndarrays of the exact types).
    #[getter]
    fn trust_input(&self) -> bool {
        self.trust_input
    }

    #[setter]
    fn set_trust_input(&mut self, v: bool) {
        self.trust_input = v;
    }

    /// The profile, when compiled with `profile=True`.
    #[getter]
    fn profile(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let Some(p) = self.program.profile() else {
            return Ok(py.None());
        };
        let mut profile = crate::compile::profile::PyProfile::new(p, self.name.clone());
        profile.rewrites = self.rewrite_summary(py)?;
        Ok(Py::new(py, profile)?.into_any())
    }

    /// A new function over the same graph, as PyTensor's `Function.copy`:
    /// `share_memory=True` shares this function's linked program (its
    /// kept buffers) and `False` links a new one; `swap={old: new}` reads
    /// and updates other shared variables of the same types;
    /// `delete_updates=True` drops the updates; the name defaults to
    /// `"<name> copy"`; `profile` (when not `None`) turns profiling on or off.
    #[pyo3(signature = (share_memory = false, swap = None, delete_updates = false, name = None, profile = None))]
    fn copy(
        &self,
        py: Python<'_>,
        share_memory: bool,
        swap: Option<&Bound<'_, PyDict>>,
        delete_updates: bool,
        name: Option<String>,
        profile: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyFunction> {
        let shared = self.swapped_shared(py, swap)?;
        let profile = profile
            .filter(|p| !p.is_none())
            .map(|p| p.is_truthy())
            .transpose()?;
        let name = name.or_else(|| self.name.as_ref().map(|n| format!("{n} copy")));
        let recipe =
            self.recipe
                .bind(py)
                .get()
                .variant(py, shared, delete_updates, name, profile)?;
        let recipe = Bound::new(py, recipe)?;
        let program = (share_memory && profile.is_none()).then(|| self.program.clone());
        crate::compile::recipe::FunctionRecipe::build(&recipe, self.trust_input, program)
    }

    fn __copy__(&self, py: Python<'_>) -> PyResult<PyFunction> {
        self.copy(py, false, None, false, None, None)
    }

    /// Releases the buffers kept between calls.
    fn free(&self) {
        self.program.free();
    }

    fn __repr__(&self) -> String {
        format!("<{}>", self.label())
    }

    /// `FunctionRecipe.compile(recipe, trust_input)`: loading compiles the
    /// pickled recipe (see `compile/recipe.rs`). The recipe is an argument,
    /// not the receiver, so `deepcopy` copies it (and the shared variables).
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, Recipe<'py>)> {
        let compile = self.recipe.bind(py).get_type().getattr("compile")?;
        Ok((compile, (self.recipe.bind(py).clone(), self.trust_input)))
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.maker)?;
        visit.call(&self.recipe)?;
        for s in &self.inputs {
            visit.call(&s.var)?;
            visit.call(&s.ty)?;
        }
        for s in &self.shared {
            visit.call(&s.var)?;
            visit.call(&s.ty)?;
        }
        Ok(())
    }
}
