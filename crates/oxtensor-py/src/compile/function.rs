//! The compiled `Function`: checks and converts the arguments, runs the
//! program with the GIL released, copies any output that would alias an
//! input, a constant or another output, and applies shared updates.

use crate::convert::array::{array_copied, copies_out, exact_view, writable_view};
use crate::graph::types::PyTensorType;
use crate::ops::host_thunk::{value_from_py, value_to_py};
use oxtensor_core::kernels::copy::copy_contiguous;
use oxtensor_core::types::TensorType;
use oxtensor_core::value::Value;
use oxtensor_core::vm::Program;
use pyo3::exceptions::{PyRecursionError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
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
    pub(crate) single: bool,
    pub(crate) borrow: Vec<bool>,
    pub(crate) name: Option<String>,
    pub(crate) trust_input: bool,
    pub(crate) maker: Py<PyAny>,
    /// What the function was compiled from, for pickling.
    pub(crate) recipe: Py<crate::compile::recipe::FunctionRecipe>,
}

impl PyFunction {
    /// The shared variables with `swap`'s replacements: keys must be shared
    /// variables and each replacement must have its original's type.
    fn swapped_shared<'py>(
        &self,
        py: Python<'py>,
        swap: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Vec<Bound<'py, PyAny>>> {
        let shared_class = py
            .import("oxtensor.compile.sharedvalue")?
            .getattr("SharedVariable")?;
        if let Some(swap) = swap {
            for (old, new) in swap.iter() {
                for v in [&old, &new] {
                    if !v.is_instance(&shared_class)? {
                        return Err(PyTypeError::new_err(format!(
                            "Function.copy(swap=...) maps shared variables to shared variables; {} is a {}",
                            v.str()?,
                            v.get_type().name()?
                        )));
                    }
                }
            }
        }
        self.shared
            .iter()
            .map(|s| {
                let old = s.var.bind(py);
                let Some(new) = swap.map(|d| d.get_item(old)).transpose()?.flatten() else {
                    return Ok(old.clone());
                };
                let (was, now) = (old.getattr("type")?, new.getattr("type")?);
                if !was.eq(&now)? {
                    return Err(PyTypeError::new_err(format!(
                        "Type of given SharedVariable conflicts with original one: {} has type {}, {} has type {}",
                        new.str()?,
                        now.str()?,
                        old.str()?,
                        was.str()?
                    )));
                }
                Ok(new)
            })
            .collect()
    }

    fn label(&self) -> String {
        self.name.clone().map_or_else(
            || "oxtensor function".into(),
            |n| format!("oxtensor function with name \"{n}\""),
        )
    }

    /// The arguments in input order, from positions and keywords.
    fn collect_args<'py>(
        &self,
        args: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Vec<Bound<'py, PyAny>>> {
        let n = self.inputs.len();
        if args.len() > n {
            return Err(PyTypeError::new_err(format!(
                "{} takes {n} arguments but {} were given",
                self.label(),
                args.len()
            )));
        }
        let mut out: Vec<Option<Bound<'py, PyAny>>> = args
            .iter()
            .map(Some)
            .chain(std::iter::repeat_n(None, n - args.len()))
            .collect();
        if let Some(kw) = kwargs {
            for (k, v) in kw.iter() {
                let key = k.str()?.to_string();
                let pos = self
                    .inputs
                    .iter()
                    .position(|s| s.name.as_deref() == Some(key.as_str()))
                    .ok_or_else(|| {
                        PyTypeError::new_err(format!(
                            "{} got an unexpected keyword argument '{key}'",
                            self.label()
                        ))
                    })?;
                if out[pos].is_some() {
                    return Err(PyTypeError::new_err(format!(
                        "{} got multiple values for argument '{key}'",
                        self.label()
                    )));
                }
                out[pos] = Some(v);
            }
        }
        out.into_iter()
            .enumerate()
            .map(|(i, a)| {
                a.ok_or_else(|| {
                    let name = self.inputs[i]
                        .name
                        .clone()
                        .unwrap_or_else(|| format!("at index {i}"));
                    PyTypeError::new_err(format!(
                        "Missing required input: {name} ({} expects {n} arguments)",
                        self.label()
                    ))
                })
            })
            .collect()
    }

    /// An argument as a value of its input's type: an ndarray of the exact
    /// dtype and a fitting shape is used as is; anything else goes through
    /// the type's `filter`.
    fn convert(&self, i: usize, arg: &Bound<'_, PyAny>) -> PyResult<Value> {
        let spec = &self.inputs[i];
        let py = arg.py();
        if let Some(tt) = spec
            .tensor
            .as_ref()
            .filter(|_| self.program.destroys_input(i))
        {
            if let Some(t) = writable_view(arg, tt.dtype, |shape| tt.fits(shape))? {
                return Ok(Value::Tensor(t));
            }
        }
        if let Some(tt) = &spec.tensor {
            let bytes = self.program.takes_bool_bytes(i);
            if let Some(t) = exact_view(arg, tt.dtype, |shape| tt.fits(shape), bytes)? {
                return Ok(Value::Tensor(t));
            }
        }
        if self.trust_input && spec.tensor.is_some() {
            return Err(PyTypeError::new_err(format!(
                "{} was called with trust_input=True but argument {i} is not an ndarray of type {}",
                self.label(),
                spec.ty.bind(py).str()?
            )));
        }
        let kwargs = PyDict::new(py);
        kwargs.set_item("strict", spec.strict)?;
        kwargs.set_item("allow_downcast", spec.allow_downcast)?;
        let filtered = spec
            .ty
            .bind(py)
            .call_method("filter", (arg,), Some(&kwargs))
            .map_err(|e| self.bad_input(py, i, e))?;
        value_from_py(&filtered, spec.ty.bind(py))
    }

    /// PyTensor's "Bad input argument" message around a filter error.
    fn bad_input(&self, py: Python<'_>, i: usize, e: PyErr) -> PyErr {
        let name = self.inputs[i]
            .name
            .clone()
            .map_or_else(|| "with no name".into(), |n| format!("with name \"{n}\""));
        let msg = format!(
            "Bad input argument {name} to {} at index {i} (0-based).\n{}",
            self.label(),
            e.value(py)
        );
        if e.is_instance_of::<PyValueError>(py) {
            PyValueError::new_err(msg)
        } else {
            PyTypeError::new_err(msg)
        }
    }

    /// Copies outputs that share memory with an input, a constant, an
    /// earlier output or a later borrowed one, unless that output is borrowed.
    /// An update computed in place in its shared variable (`in_place`) is
    /// left as it is: nothing else sees it.
    fn unalias(&self, inputs: &[Value], outputs: &mut [Value], in_place: &[bool]) -> PyResult<()> {
        let borrow = |j: usize| {
            self.borrow.get(j).copied().unwrap_or(false)
                || j.checked_sub(self.n_outputs)
                    .and_then(|u| in_place.get(u))
                    .copied()
                    .unwrap_or(false)
        };
        for k in 0..outputs.len() {
            let Value::Tensor(t) = &outputs[k] else {
                continue;
            };
            let borrowed = borrow(k);
            // A borrowed output keeps the memory, so a plain one sharing it
            // is copied whichever comes first.
            let shares_output = outputs.iter().enumerate().any(|(j, v)| {
                (j < k || (j > k && borrow(j)))
                    && matches!(v, Value::Tensor(o) if o.shares_buffer(t))
            });
            let aliased = !t.buffer().is_rust_owned()
                || self.program.aliases_constant(t)
                || inputs
                    .iter()
                    .any(|v| matches!(v, Value::Tensor(i) if Arc::ptr_eq(i.buffer(), t.buffer())))
                || shares_output;
            if aliased && !borrowed {
                outputs[k] = Value::Tensor(copy_contiguous(t).map_err(crate::errors::to_pyerr)?);
            }
        }
        Ok(())
    }

    /// An output as a Python object: a small tensor is copied into an array
    /// NumPy owns and its buffer goes back to the program for the next call
    /// (see `array::copies_out`); anything else is handed over as it is.
    fn output_to_py<'py>(&self, py: Python<'py>, v: Value) -> PyResult<Bound<'py, PyAny>> {
        match v {
            Value::Tensor(t) if copies_out(&t) => {
                let arr = array_copied(py, &t)?;
                self.program.recycle(t);
                Ok(arr)
            }
            v => value_to_py(py, &v, true),
        }
    }

    /// Appends the arguments as values in input order, then the shared
    /// variables', to `values` (an inline vector of the caller's: it is
    /// filled in place, since moving one costs a copy of all its slots).
    fn values(
        &self,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
        values: &mut Values,
    ) -> PyResult<()> {
        let py = args.py();
        if kwargs.is_none_or(|kw| kw.is_empty()) && args.len() == self.inputs.len() {
            // The common call, all positional: no matching to do.
            for (i, a) in args.iter_borrowed().enumerate() {
                values.push(self.convert(i, &a)?);
            }
        } else {
            for (i, a) in self.collect_args(args, kwargs)?.iter().enumerate() {
                values.push(self.convert(i, a)?);
            }
        }
        self.push_shared(py, values)
    }

    /// Appends the shared variables' current values.
    fn push_shared(&self, py: Python<'_>, values: &mut Values) -> PyResult<()> {
        for (k, s) in self.shared.iter().enumerate() {
            let value = s.var.bind(py).call_method1("get_value", (true,))?;
            values.push(self.shared_value(k, &value, s.ty.bind(py))?);
        }
        Ok(())
    }

    /// Shared variable `k`'s value for a call: a writable view of its own
    /// array when the program destroys it (its update runs in place).
    fn shared_value(
        &self,
        k: usize,
        value: &Bound<'_, PyAny>,
        ty: &Bound<'_, PyAny>,
    ) -> PyResult<Value> {
        // Only when this function applies the update (a copy made with
        // `delete_updates` runs the same program and must leave it alone).
        if self.updates.contains(&k) && self.program.destroys_input(self.inputs.len() + k) {
            if let Ok(tt) = ty.cast::<PyTensorType>() {
                let tt = &tt.get().inner;
                if let Some(t) = writable_view(value, tt.dtype, |shape| tt.fits(shape))? {
                    return Ok(Value::Tensor(t));
                }
            }
        }
        value_from_py(value, ty)
    }

    /// Whether update `u` (output `n_outputs + u`) was computed in place in
    /// its shared variable's own array: the destroyed argument's buffer,
    /// a view of that array (made by [`PyFunction::shared_value`]). The
    /// variable then already holds the new value.
    fn updated_in_place(&self, values: &[Value], outputs: &[Value], u: usize) -> bool {
        let (Some(&k), Some(Value::Tensor(out))) =
            (self.updates.get(u), outputs.get(self.n_outputs + u))
        else {
            return false;
        };
        let Some(Value::Tensor(arg)) = values.get(self.inputs.len() + k) else {
            return false;
        };
        Arc::ptr_eq(arg.buffer(), out.buffer())
            && !arg.buffer().is_rust_owned()
            && arg.offset() == out.offset()
            && arg.shape() == out.shape()
            && arg.strides() == out.strides()
            && arg.dtype() == out.dtype()
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

    /// Runs the program on the argument `values` (inputs, then shared
    /// variables) and returns the outputs, applying the updates.
    /// (`values` by reference: moving the inline vector copies all its slots.)
    pub(crate) fn finish(&self, py: Python<'_>, values: &Values) -> PyResult<Py<PyAny>> {
        let program = &self.program;
        // Releasing the GIL costs more than a small run; a run that calls
        // back into Python always releases it (see `Program::is_small_run`).
        let run = || {
            crate::errors::panics::guard(|| program.run(values).map_err(crate::errors::to_pyerr))
        };
        let mut outputs = if program.is_small_run(values) {
            run()
        } else {
            py.detach(run)
        }?;
        let in_place: SmallVec<[bool; 4]> = (0..self.updates.len())
            .map(|u| self.updated_in_place(values, &outputs, u))
            .collect();
        self.unalias(values, &mut outputs, &in_place)?;
        for (u, (value, &k)) in outputs
            .drain(self.n_outputs..)
            .zip(&self.updates)
            .enumerate()
        {
            if in_place[u] {
                continue;
            }
            let obj = value_to_py(py, &value, true)?;
            self.shared[k]
                .var
                .bind(py)
                .call_method1("set_value", (obj, true))?;
        }
        if self.single {
            return match outputs.into_iter().next() {
                Some(v) => Ok(self.output_to_py(py, v)?.unbind()),
                None => Ok(py.None()),
            };
        }
        let results = outputs
            .into_iter()
            .map(|v| self.output_to_py(py, v))
            .collect::<PyResult<Vec<_>>>()?;
        Ok(PyList::new(py, results)?.into_any().unbind())
    }
}

/// A call's argument values, inline: a heap vector per call was a
/// measurable part of a small call.
type Values = SmallVec<[Value; 4]>;

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

    /// The function's name, if given.
    #[getter]
    fn name(&self) -> Option<String> {
        self.name.clone()
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
        match self.program.profile() {
            Some(p) => Ok(Py::new(
                py,
                crate::compile::profile::PyProfile::new(p, self.name.clone()),
            )?
            .into_any()),
            None => Ok(py.None()),
        }
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
