//! `oxtensor.function(...)`: turns inputs, outputs, updates and givens into
//! a `FunctionGraph` (shared variables become implicit inputs, update
//! expressions extra outputs), links it for the VM, and wraps it in a
//! `Function`.

mod arguments;
pub mod debug_mode;
pub mod function;
mod gc_pause;
pub mod mode;
mod mode_args;
pub mod profile;
pub mod recipe;
mod results;
pub mod specs;
pub mod vectorcall;

use self::specs::{
    collect_shared, free_inputs, given_pairs, input_spec, is_mutable, on_unused, output_specs,
    update_pairs, Pair,
};
use crate::compile::function::{InputSpec, SharedSpec};
use crate::compile::mode::core_mode;
use crate::compile::recipe::{input_entry, FunctionRecipe};
use crate::convert::import::Memo;
use crate::errors::IntoPyResult;
use crate::graph::fgraph::PyFunctionGraph;
use oxtensor_core::compile::{FunctionInput, FunctionMaker, FunctionSpec};
use oxtensor_core::graph::{traversal, Graph, VarId};
use oxtensor_core::rewrite::HostFolding;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyList};

pyo3::create_exception!(
    oxtensor.compile.function,
    UnusedInputError,
    pyo3::exceptions::PyException,
    "An input of a function is not needed to compute its outputs."
);

/// Shows the core's warnings as Python `UserWarning`s.
pub fn warn_all(py: Python<'_>, warnings: &[String]) -> PyResult<()> {
    let warn = py.import("warnings")?.getattr("warn")?;
    for msg in warnings {
        warn.call1((msg, py.get_type::<pyo3::exceptions::PyUserWarning>()))?;
    }
    Ok(())
}

/// What the core needs to know of the user's graph, imported once.
struct Imported<'py> {
    memo: Memo,
    g: Graph,
    spec: FunctionSpec,
    shared: Vec<Bound<'py, PyAny>>,
    /// For each update, the shared variable (index) it updates.
    updated: Vec<usize>,
}

/// Imports inputs, outputs, updates and givens, and finds the shared
/// variables; the maker copies what it compiles, so the user's graph is
/// never changed.
fn import_function<'py>(
    fg_inputs: &[Bound<'py, PyAny>],
    outputs: &[(Bound<'py, PyAny>, bool)],
    mut pairs: Vec<Pair<'py>>,
    givens: &[Pair<'py>],
    no_default: &Bound<'py, PyAny>,
) -> PyResult<Imported<'py>> {
    let (mut memo, mut g) = (Memo::default(), Graph::new());
    let mut spec = FunctionSpec::default();
    for v in fg_inputs {
        spec.inputs
            .push(FunctionInput::new(memo.import_var(&mut g, v)?));
    }
    for (v, borrow) in outputs {
        spec.outputs.push((memo.import_var(&mut g, v)?, *borrow));
    }
    for (k, v) in givens {
        spec.givens
            .push((memo.import_var(&mut g, k)?, memo.import_var(&mut g, v)?));
    }
    let mut roots: Vec<VarId> = spec.outputs.iter().map(|&(v, _)| v).collect();
    for (_, e) in &pairs {
        roots.push(memo.import_var(&mut g, e)?);
    }
    let replacements: Vec<VarId> = spec.givens.iter().map(|&(_, v)| v).collect();
    roots.extend(&replacements);
    // A given's key is not read, unless a replacement reads it
    // (`givens={a: a + 10}`: the replacement's `a` is the original).
    let read = traversal::graph_inputs(&g, &replacements, &[]);
    let keys: Vec<VarId> = spec
        .givens
        .iter()
        .map(|&(k, _)| k)
        .filter(|k| !read.contains(k))
        .collect();
    let shared = collect_shared(&mut memo, &mut g, &roots, &keys, &mut pairs, no_default)?;
    let updated: Vec<usize> = pairs
        .iter()
        .map(|(v, _)| shared.iter().position(|s| s.is(v)).unwrap_or(0))
        .collect();
    let n_explicit = spec.inputs.len();
    for (k, s) in shared.iter().enumerate() {
        spec.inputs.push(FunctionInput {
            var: memo.import_var(&mut g, s)?,
            mutable: updated.contains(&k),
            borrow: true,
            implicit: true,
        });
    }
    for ((_, e), &k) in pairs.iter().zip(&updated) {
        spec.updates
            .push((n_explicit + k, memo.import_var(&mut g, e)?));
    }
    Ok(Imported {
        memo,
        g,
        spec,
        shared,
        updated,
    })
}

/// `oxtensor.function`'s work up to linking: the rewritten graph and what
/// a call needs. `oxtensor.function` links it (`FunctionRecipe.compile`);
/// a linker outside the core (`oxtensor.link.jax`) takes the graph. A
/// panic while compiling is an `InternalError` (see `errors/panics.rs`).
#[pyfunction]
#[pyo3(signature = (inputs, outputs = None, mode = None, updates = None, givens = None, no_default_updates = None, accept_inplace = false, name = None, rebuild_strict = true, allow_input_downcast = None, profile = None, on_unused_input = None))]
#[allow(clippy::too_many_arguments)]
pub fn function_recipe<'py>(
    py: Python<'py>,
    inputs: Bound<'py, PyAny>,
    outputs: Option<Bound<'py, PyAny>>,
    mode: Option<Bound<'py, PyAny>>,
    updates: Option<Bound<'py, PyAny>>,
    givens: Option<Bound<'py, PyAny>>,
    no_default_updates: Option<Bound<'py, PyAny>>,
    accept_inplace: bool,
    name: Option<String>,
    rebuild_strict: bool,
    allow_input_downcast: Option<bool>,
    profile: Option<Bound<'py, PyAny>>,
    on_unused_input: Option<String>,
) -> PyResult<Bound<'py, FunctionRecipe>> {
    crate::errors::panics::guard(|| {
        let _ = rebuild_strict;
        let _gc = gc_pause::GcPause::new(py);
        let mut core = core_mode(mode.as_ref())?;
        core.settings.log = crate::rewriting::verbose::log_from_config(py)?;
        // DebugMode compares every call with the same function in FAST_COMPILE.
        let reference_args = core
            .link
            .checker
            .as_ref()
            .is_some_and(|c| c.wants_reference())
            .then(|| {
                (
                    inputs.clone(),
                    outputs.clone(),
                    updates.clone(),
                    givens.clone(),
                    no_default_updates.clone(),
                )
            });
        let items: Vec<Bound<'py, PyAny>> = inputs.try_iter()?.collect::<PyResult<_>>()?;
        let specs: Vec<InputSpec> = items
            .iter()
            .map(|i| input_spec(i, allow_input_downcast))
            .collect::<PyResult<_>>()?;
        let mutable = items
            .iter()
            .map(is_mutable)
            .collect::<PyResult<Vec<bool>>>()?;
        for (i, s) in specs.iter().enumerate() {
            if specs[..i].iter().any(|o| o.var.is(&s.var)) {
                // PyTensor's class for it, which its users catch.
                return Err(UnusedInputError::new_err(format!(
                    "Variable {} is used twice in inputs",
                    s.var.bind(py).str()?
                )));
            }
        }
        let (out_vars, borrow, single) = output_specs(outputs)?;
        let pairs = update_pairs(updates)?;
        let mut givens = given_pairs(givens)?;
        let fg_inputs = free_inputs(py, &specs, &mut givens)?;
        let no_default =
            no_default_updates.unwrap_or_else(|| PyBool::new(py, false).to_owned().into_any());
        let outs: Vec<(Bound<'py, PyAny>, bool)> = out_vars
            .iter()
            .cloned()
            .zip(borrow.iter().copied())
            .collect();
        let mut imported = import_function(&fg_inputs, &outs, pairs, &givens, &no_default)?;
        imported.spec.on_unused_input = on_unused(on_unused_input.as_deref())?;
        imported.spec.accept_inplace = accept_inplace;
        for ((input, m), s) in imported.spec.inputs.iter_mut().zip(mutable).zip(&specs) {
            input.mutable = m;
            input.borrow = s.borrow;
        }
        let (fg, log) = PyFunctionGraph::shell(py, imported.memo)?;
        let bridge = crate::rewriting::bridge::HostBridge::new(&fg);
        let built = FunctionMaker::new(imported.g, imported.spec, core)
            .with_feature(log)
            .with_feature(Box::new(bridge))
            .with_feature(Box::new(HostFolding(Box::new(
                crate::rewriting::fold::PyHostFolder,
            ))))
            .build()
            .py()?;
        warn_all(py, &built.warnings)?;
        // PyTensor keeps a rewrite run's profile on the graph (`fgraph.profile`).
        let profile_obj = crate::rewriting::profile::PyRewriteProfile::from(built.profile);
        fg.setattr("rewrite_profile", profile_obj)?;
        let mut core_fg = built.fgraph;
        crate::rewriting::bridge::HostBridge::detach(&mut core_fg).py()?;
        core_fg.remove_feature_of::<HostFolding>().py()?;
        PyFunctionGraph::adopt(&fg, core_fg)?;
        let profile = profile.map(|p| p.is_truthy()).transpose()?.unwrap_or(false);
        let entries = specs
            .iter()
            .map(|s| input_entry(py, &s.var, &s.name, s.strict, s.allow_downcast, s.borrow))
            .collect::<PyResult<Vec<_>>>()?;
        let reference = match reference_args {
            Some((inputs, outputs, updates, givens, no_default)) => {
                let fast_compile = pyo3::types::PyString::new(py, "FAST_COMPILE").into_any();
                let f = function_recipe(
                    py,
                    inputs,
                    outputs,
                    Some(fast_compile),
                    updates,
                    givens,
                    no_default,
                    accept_inplace,
                    None,
                    rebuild_strict,
                    allow_input_downcast,
                    None,
                    Some("ignore".to_owned()),
                )?;
                Some(f.unbind())
            }
            None => None,
        };
        let recipe = FunctionRecipe::new(
            fg.unbind(),
            PyList::new(py, entries)?.into_any(),
            PyList::new(py, imported.shared)?.into_any(),
            imported.updated,
            PyList::new(py, &out_vars)?.into_any(),
            out_vars.len(),
            single,
            borrow,
            name,
            profile,
            mode.map(Bound::unbind),
            reference,
        )?;
        Bound::new(py, recipe)
    })
}

/// `Function.maker`: the function graph, the inputs and outputs, and the
/// mode compiled with (`f.maker.mode.linker`, as in PyTensor). `inputs` (and
/// `expanded_inputs`) are PyTensor's `In` objects: the explicit inputs, then
/// each shared variable as an implicit input whose `value` is its container
/// and whose `update`, if any, is the compiled graph's update expression.
pub fn make_maker(
    py: Python<'_>,
    fg: &Bound<'_, PyFunctionGraph>,
    specs: &[InputSpec],
    shared: &[SharedSpec],
    updates: &[usize],
    outputs: &[Bound<'_, PyAny>],
    mode: Option<&Py<PyAny>>,
) -> PyResult<Py<PyAny>> {
    let ns = py.import("types")?.getattr("SimpleNamespace")?;
    let kwargs = PyDict::new(py);
    kwargs.set_item("fgraph", fg)?;
    kwargs.set_item("mode", mode.map(|m| m.clone_ref(py)))?;
    // PyTensor's `FunctionMaker.linker` (tests ask `isinstance(f.maker.linker, ...)`);
    // `None` for the mode given by name to DebugMode's reference function.
    let linker = match mode.map(|m| m.bind(py)) {
        Some(m) if m.hasattr("linker")? => m.getattr("linker")?,
        _ => py.None().into_bound(py),
    };
    kwargs.set_item("linker", linker)?;
    let inputs = PyList::new(py, maker_inputs(py, fg, specs, shared, updates)?)?;
    kwargs.set_item("inputs", &inputs)?;
    kwargs.set_item("expanded_inputs", inputs)?;
    kwargs.set_item("outputs", PyList::new(py, outputs)?)?;
    // As PyTensor, whether the profile shows the rewrites is decided when
    // compiling (`config.profile_optimizer`).
    let config = py.import("oxtensor.configdefaults")?.getattr("config")?;
    let rewrites = config.getattr("profile_optimizer")?.is_truthy()?;
    kwargs.set_item("profile_optimizer", rewrites)?;
    Ok(ns.call((), Some(&kwargs))?.unbind())
}

/// The `In` objects of `make_maker`.
fn maker_inputs<'py>(
    py: Python<'py>,
    fg: &Bound<'py, PyFunctionGraph>,
    specs: &[InputSpec],
    shared: &[SharedSpec],
    updates: &[usize],
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let in_class = crate::registry::registered(py, "In")?;
    let mut made = Vec::with_capacity(specs.len() + shared.len());
    for s in specs {
        let kw = PyDict::new(py);
        kw.set_item("name", s.name.as_deref())?;
        kw.set_item("strict", s.strict)?;
        kw.set_item("allow_downcast", s.allow_downcast)?;
        kw.set_item("borrow", s.borrow)?;
        made.push(in_class.call((s.var.bind(py),), Some(&kw))?);
    }
    // The update expressions are the graph's trailing outputs, in order.
    let fg_outputs: Vec<Bound<'py, PyAny>> = fg.getattr("outputs")?.extract()?;
    let first_update = fg_outputs.len() - updates.len().min(fg_outputs.len());
    for (k, s) in shared.iter().enumerate() {
        let var = s.var.bind(py);
        let update = updates
            .iter()
            .position(|&u| u == k)
            .and_then(|j| fg_outputs.get(first_update + j));
        let kw = PyDict::new(py);
        kw.set_item("value", var.getattr("container")?)?;
        kw.set_item("update", update)?;
        kw.set_item("implicit", true)?;
        kw.set_item("shared", true)?;
        made.push(in_class.call((var,), Some(&kw))?);
    }
    Ok(made)
}
